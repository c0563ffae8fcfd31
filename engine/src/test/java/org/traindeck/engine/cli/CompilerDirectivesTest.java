package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;

/**
 * packaging/compiler-directives.json (which methods C2 leaves to C1) reaches every TrainDeck JVM: the ./traindeck
 * launcher's (the CLI's and the bench's, whose child JVMs copy its options) and the installed app's
 * (packaging/build-linux.sh); a real JVM accepts the file, and every method it names exists in DL4J, so that a DL4J
 * upgrade that renames one fails here instead of silently giving the compiler its work back.
 */
class CompilerDirectivesTest {

    private static final String UNLOCK = "-XX:+UnlockDiagnosticVMOptions";
    private static final String QUIET = "-XX:-DisplayVMOutput";
    private static final String DIRECTIVES = "-XX:CompilerDirectivesFile=";
    private static final Path FILE = TestPaths.repoRoot().resolve("packaging/compiler-directives.json");

    @TempDir
    Path root;

    @Test
    void theLauncherGivesTheCliAndTheBenchTheDirectives() throws Exception {
        copy("traindeck");
        copy("packaging/compiler-directives.json");
        LauncherSandbox.built(root, "engine");
        LauncherSandbox.built(root, "bench");
        Path bin = Files.createDirectories(root.resolve("bin"));
        Files.writeString(bin.resolve("java"), "#!/bin/sh\nprintf '%s\\n' \"$@\"\n");
        bin.resolve("java").toFile().setExecutable(true);

        String file = DIRECTIVES + root.resolve("packaging/compiler-directives.json");
        for (List<String> java : List.of(
                LauncherSandbox.launch(root, "validate", "some.json"),
                LauncherSandbox.launch(root, "bench", "startup"))) {
            assertThat(java).contains(UNLOCK, QUIET, file);
            assertThat(java.indexOf(UNLOCK)).isLessThan(java.indexOf(QUIET));
        }
    }

    @Test
    void theInstalledAppCarriesTheSameFileAndOptions() throws IOException {
        String build = Files.readString(TestPaths.repoRoot().resolve("packaging/build-linux.sh"));
        assertThat(build).contains("cp \"$root/packaging/compiler-directives.json\" \"$out/input/\"");
        // jpackage's --input folder is the app's $APPDIR
        int unlock = build.indexOf('"' + UNLOCK + '"');
        assertThat(unlock).isPositive();
        assertThat(build.indexOf('"' + QUIET + '"')).isGreaterThan(unlock);
        assertThat(build.indexOf('"' + DIRECTIVES + "\\$APPDIR/compiler-directives.json\""))
                .isGreaterThan(unlock);
    }

    @Test
    void aJvmAcceptsTheFileAndEveryMethodItNamesExists() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, UNLOCK, DIRECTIVES + FILE, "-XX:+CompilerDirectivesPrint", "-version")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("1 compiler directives added");
        // and what the launcher adds keeps that line off the program's output
        Process quiet = new ProcessBuilder(java, UNLOCK, QUIET, DIRECTIVES + FILE, "-version")
                .redirectErrorStream(true)
                .start();
        String quietOut = new String(quiet.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(quiet.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(quiet.exitValue()).as(quietOut).isZero();
        assertThat(quietOut).doesNotContain("directives").contains("version");

        Matcher named = Pattern.compile("\"([\\w/$]+)/([\\w$]+)\\.([\\w$]+)\"").matcher(Files.readString(FILE));
        List<String> methods = new ArrayList<>();
        while (named.find()) {
            Class<?> type = Class.forName((named.group(1) + "/" + named.group(2)).replace('/', '.'));
            String method = named.group(3);
            assertThat(Arrays.stream(type.getDeclaredMethods()).map(m -> m.getName()))
                    .as(type.getName())
                    .contains(method);
            methods.add(type.getSimpleName() + "." + method);
        }
        assertThat(methods)
                .contains("ComputationGraph.calcBackpropGradients", "ComputationGraph.ffToLayerActivationsInWS");
    }

    private void copy(String path) throws IOException {
        Path to = root.resolve(path);
        Files.createDirectories(to.getParent());
        Files.copy(TestPaths.repoRoot().resolve(path), to);
        to.toFile().setExecutable(Files.isExecutable(TestPaths.repoRoot().resolve(path)));
    }
}
