package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A copy of the ./traindeck launcher in a folder of its own, run with a stand-in {@code java} on its PATH that prints
 * its arguments: what the launcher would start, without building or starting anything.
 */
final class LauncherSandbox {

    private LauncherSandbox() {}

    /** The java command line the launcher in {@code root} ran, one argument a line (after the version probe's). */
    static List<String> launch(Path root, String... args) throws Exception {
        List<String> command =
                new ArrayList<>(List.of("bash", root.resolve("traindeck").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile());
        pb.environment().put("PATH", root.resolve("bin") + ":/usr/bin:/bin");
        pb.environment().put("XDG_DATA_HOME", root.resolve("data").toString());
        pb.environment().remove("TRAINDECK_JAVA_OPTS");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        List<String> lines = out.lines().toList();
        return lines.subList(lines.indexOf("-version") + 1, lines.size());
    }

    /** A module in {@code root} that counts as built: its classes, class path and stamp, no sources newer. */
    static void built(Path root, String module) throws IOException {
        Path target = Files.createDirectories(root.resolve(module).resolve("target/classes"))
                .getParent();
        Files.writeString(target.resolve("runtime-classpath.txt"), module + ".jar");
        Files.writeString(target.resolve(".traindeck-built"), "");
    }
}
