package org.traindeck.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javafx.application.Platform;
import javafx.stage.Stage;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.tasks.FxTaskExecutor;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.TelemetryMonitor;

/** The real window with real engine services, test dialogs and a throw-away preferences node. */
final class WindowFixture {

    static Path repoRoot() {
        Path here = Path.of("").toAbsolutePath();
        return here.resolve("sample-configs").toFile().isDirectory() ? here : here.getParent();
    }

    final TestDialogs dialogs = new TestDialogs();
    /** A throw-away config folder of the app's own, as a fresh HOME would give. */
    final Path configFolder = tempFolder();

    final AppPreferences preferences = new AppPreferences(configFolder.resolve(AppPreferences.FILE));
    MainWindow window;
    /** The devices the window's engine finds; null for this machine's. */
    DeviceDiscovery devices;
    /** The config side's tabs; the standard ones unless a test adds its own. */
    AppTabs tabs = AppTabs.standard();

    MainWindow open(Stage stage, Path config) {
        TelemetryMonitor.Settings fast = new TelemetryMonitor.Settings(
                Duration.ofMillis(200),
                Duration.ofSeconds(5),
                Duration.ofMillis(200),
                Duration.ofSeconds(1),
                Duration.ofSeconds(30));
        Engine engine = devices == null ? Engine.local(fast) : Engine.withDevices(devices, fast);
        MainWindow.Services services =
                new MainWindow.Services(dialogs, engine, new FxTaskExecutor(), preferences, repoRoot());
        window = new MainWindow(stage, services, config, tabs);
        stage.show();
        return window;
    }

    /** Trains a config to its end through the engine's API, as the window does. */
    static RunResult train(Path config) throws Exception {
        RunHandle run = Engine.local().openRun(Configs.load(config).orThrow());
        run.start();
        return run.completion().get(5, TimeUnit.MINUTES);
    }

    void close() {
        if (window != null) {
            Platform.runLater(window::close);
            WaitForAsyncUtils.waitForFxEvents();
        }
        try (var files = Files.walk(configFolder)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind
        }
    }

    private static Path tempFolder() {
        try {
            return Files.createTempDirectory("traindeck-config-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void waitUntil(String what, BooleanSupplier condition) {
        FxWait.waitUntil(what, condition);
    }

    static <T> T onFx(Callable<T> read) {
        return FxWait.onFx(read);
    }
}
