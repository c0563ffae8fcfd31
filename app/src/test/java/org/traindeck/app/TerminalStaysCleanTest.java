package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.platform.unix.LibC;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A normal start prints nothing on the terminal: no JavaFX class-path warning, no GTK settings warnings. */
class TerminalStaysCleanTest {

    /** The app started as a user starts it (the launcher's main class, a fresh home), in its own process. */
    @Test
    void aNormalStartLeavesTheTerminalClean(@TempDir Path home) throws IOException, InterruptedException {
        Path config = WindowFixture.repoRoot().resolve("sample-configs/digits-mlp.json");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-Duser.home=" + home));
        // the headless screen the other window tests use (no X server is needed)
        for (String p : List.of(
                "glass.platform",
                "monocle.platform",
                "prism.order",
                "prism.text",
                "headless.geometry",
                "java.awt.headless")) {
            if (System.getProperty(p) != null) {
                command.add("-D" + p + "=" + System.getProperty(p));
            }
        }
        command.addAll(List.of(Launcher.class.getName(), "--startup-probe", config.toString()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(home.resolve("out.txt").toFile())
                .redirectError(home.resolve("err.txt").toFile());
        Map<String, String> env = builder.environment();
        env.put("HOME", home.toString());
        env.remove("XDG_CONFIG_HOME");
        env.remove("XDG_DATA_HOME");
        Process app = builder.start();
        assertThat(app.waitFor(5, TimeUnit.MINUTES))
                .as("the app quit after its first frames")
                .isTrue();

        String out = Files.readString(home.resolve("out.txt"));
        List<String> err = Files.readAllLines(home.resolve("err.txt")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("Picked up JAVA_TOOL_OPTIONS"))
                .toList();
        assertThat(app.exitValue()).as("exit status; stderr: %s", err).isZero();
        assertThat(out).as("the window was shown and its config loaded").contains("startup-probe first-frame-ms=");
        assertThat(err).as("what the terminal shows on a normal start").isEmpty();
    }

    /** Without a session bus GTK's file picker cannot save its settings: it is given memory, and says nothing. */
    @Test
    void withoutASessionBusGtkKeepsItsSettingsInMemory(@TempDir Path runtime) throws IOException {
        assertThat(QuietDesktop.needsMemorySettings(Map.of())).isTrue();
        assertThat(QuietDesktop.needsMemorySettings(Map.of("XDG_RUNTIME_DIR", runtime.toString())))
                .isTrue();
        Files.createFile(runtime.resolve("bus"));
        assertThat(QuietDesktop.needsMemorySettings(Map.of("XDG_RUNTIME_DIR", runtime.toString())))
                .as("a session bus at its usual socket")
                .isFalse();
        assertThat(QuietDesktop.needsMemorySettings(Map.of("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/bus")))
                .isFalse();
        assertThat(QuietDesktop.needsMemorySettings(Map.of(QuietDesktop.BACKEND, "keyfile")))
                .as("a backend the user chose")
                .isFalse();

        if (QuietDesktop.needsMemorySettings(System.getenv())) {
            QuietDesktop.settingsInMemoryWithoutSessionBus();
            assertThat(LibC.INSTANCE.getenv(QuietDesktop.BACKEND))
                    .as("the C environment GTK reads")
                    .isEqualTo("memory");
        }
    }
}
