package org.traindeck.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.stage.Stage;
import org.traindeck.app.audit.LayoutAuditInWindow;
import org.traindeck.app.tasks.FxTaskExecutor;
import org.traindeck.app.ui.FxDialogs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.runs.RunResult;

/** The TrainDeck desktop app. With a config file as argument it opens that; otherwise a sample that trains offline. */
public class TrainDeckApp extends Application {

    private MainWindow window;

    /**
     * Where the sample configs and their data are: the launcher passes it, else the working directory. An installed
     * package's folder is read-only, so there the samples are first copied to the user's data folder, where their
     * runs can be written.
     */
    static Path home() {
        Path home = Path.of(System.getProperty("traindeck.home", System.getProperty("user.dir")))
                .toAbsolutePath();
        if (!Boolean.getBoolean("traindeck.packaged")) {
            return home;
        }
        Path user = Engine.dataHome().resolve("samples");
        try {
            if (!Files.isDirectory(user.resolve("sample-configs"))) {
                copyTree(home, user);
            }
            return user;
        } catch (IOException e) {
            System.err.println("could not copy the samples to " + user + ": " + e.getMessage());
            return home;
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** A tiny run for --smoke-test: synthetic data, trains in seconds anywhere. */
    static final String SMOKE_CONFIG = """
            {"name": "smoke-test", "outputDir": "runs", "seed": 1, "devices": "cpu",
             "model": {"type": "mlp", "hidden": [16]},
             "data": {"train": {"type": "synthetic", "samples": 600, "features": 8, "numClasses": 3}, "validationSplit": 0.2},
             "stages": [{"name": "main", "epochs": 3, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.01},
                         "schedule": {"type": "warmupCosine", "warmupSteps": 5}}]}
            """;

    /** The window's default size, where a new user first meets it. */
    private static final String DEFAULT_AUDIT_SIZE = "1360x860";

    @Override
    public void start(Stage stage) throws Exception {
        List<String> args = getParameters().getRaw();
        boolean smoke = args.contains("--smoke-test");
        boolean autoStart = smoke || args.contains("--start");
        List<String> files = args.stream().filter(a -> !a.startsWith("--")).toList();
        Path initial = files.isEmpty() ? null : Path.of(files.get(0)).toAbsolutePath();
        Path smokeDir = null;
        if (smoke && initial == null) {
            smokeDir = Files.createTempDirectory("traindeck-smoke-");
            initial = smokeDir.resolve("smoke-test.json");
            Files.writeString(initial, SMOKE_CONFIG);
        }
        MainWindow.Services services = new MainWindow.Services(
                new FxDialogs(stage), Engine.local(), new FxTaskExecutor(), AppPreferences.user(), home());
        window = new MainWindow(stage, services, initial);
        stage.show();
        if (args.contains("--startup-probe")) {
            StartupProbe.reportAfterFirstFrame(
                    () -> window.document().validationProperty().get() != null);
        }
        args.stream()
                .filter(a -> a.equals("--layout-audit") || a.startsWith("--layout-audit="))
                .findFirst()
                .ifPresent(a -> new LayoutAuditInWindow(
                                stage.getScene(),
                                LayoutAuditInWindow.Size.parse(
                                        a.contains("=") ? a.substring(a.indexOf('=') + 1) : DEFAULT_AUDIT_SIZE),
                                () -> window.document().validationProperty().get() != null,
                                TrainDeckApp::print,
                                window.helpDialogs(stage))
                        .start());
        if (autoStart) {
            var result = window.startWhenReady();
            if (smoke) {
                Path resultDir = smokeDir;
                result.whenComplete((r, error) -> Platform.runLater(() -> finishSmokeTest(r, error, resultDir)));
            }
        }
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** Prints the smoke test's verdict and exits: 0 when a real run finished and the charts showed it. */
    private void finishSmokeTest(RunResult r, Throwable error, Path dir) {
        window.dashboard().drain(Integer.MAX_VALUE);
        window.dashboard().refreshCharts();
        long points = window.dashboard().charts().stream()
                .mapToLong(c -> c.totalPoints())
                .sum();
        boolean ok = error == null
                && r != null
                && r.status() == RunResult.Status.FINISHED
                && window.dashboard().lossChart().totalPoints() > 0;
        String verdict = ok
                ? "smoke test passed: " + r.steps() + " steps in "
                        + String.format(Locale.ROOT, "%.1f", r.elapsedSeconds()) + " s, val/accuracy "
                        + r.lastMetrics().get("val/accuracy") + ", " + points + " chart points; run folder "
                        + r.runDir()
                : "smoke test FAILED: " + (error != null ? error.getMessage() : r == null ? "no result" : r.message());
        System.out.println(verdict);
        try {
            if (dir != null) {
                Files.writeString(dir.resolve("smoke-test-result.txt"), verdict + "\n");
            }
        } catch (IOException e) {
            System.err.println("could not write the smoke test's result: " + e.getMessage());
        }
        window.close();
        Platform.exit();
        System.exit(ok ? 0 : 1);
    }

    @Override
    public void stop() {
        if (window != null) {
            window.close();
        }
        Platform.exit();
    }
}
