package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.traindeck.engine.sinks.RunStatusSink;

/** The CLI in a child JVM ({@link FaultInjectingMain}, so that options before the command inject faults) and signals to it. */
final class CliProcess {

    private static final ObjectMapper JSON = new ObjectMapper();

    private CliProcess() {}

    /** Starts {@code args} in {@code dir}, its output (both streams) going to {@code dir/log}. */
    static Process start(Path dir, String log, String... args) throws IOException {
        return start(dir, log, List.of(), args);
    }

    /** {@link #start(Path, String, String...)} with {@code jvmOptions} given to the child JVM. */
    static Process start(Path dir, String log, List<String> jvmOptions, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-Dorg.deeplearning4j.resources.directory=" + dir.resolve("dl4j")));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), FaultInjectingMain.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(log).toFile())
                .start();
    }

    /**
     * Runs {@code args} as {@link #start} does, to its end: asserts that it ends within {@code seconds} ({@code what})
     * and exits 0, and returns its output.
     */
    static String runToSuccess(Path dir, String log, long seconds, String what, String... args) throws Exception {
        Process p = start(dir, log, args);
        try {
            assertThat(p.waitFor(seconds, TimeUnit.SECONDS)).as(what).isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.readString(dir.resolve(log));
        assertThat(p.exitValue()).as(output).isZero();
        return output;
    }

    /** {@code kill -SIGNAL pid}: the signal as systemd, Docker or a terminal send it. */
    static void signal(Process p, String signal) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid()))
                        .start()
                        .waitFor())
                .isZero();
    }

    /**
     * Whether this JVM was started with SIGINT ignored (a job started with {@code &} from a script): its children
     * inherit that, and a JVM keeps an ignored signal ignored, as {@code nohup} and shells expect.
     */
    static boolean sigintIgnored() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(l -> l.startsWith("SigIgn:"))
                    .map(l -> Long.parseUnsignedLong(
                            l.substring("SigIgn:".length()).trim(), 16))
                    .anyMatch(mask -> (mask & (1L << 1)) != 0);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Skips a SIGINT case where SIGINT cannot reach a child (see {@link #sigintIgnored()}). */
    static void assumeSignalReaches(String signal) {
        assumeThat(signal.equals("INT") && sigintIgnored())
                .as("SIGINT is ignored in this process (started in the background by a script), so in its children too")
                .isFalse();
    }

    static String readOrEmpty(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }

    /** The run's status.json (it is replaced atomically, so it is always whole). */
    static JsonNode status(Path runDir) throws IOException {
        return JSON.readTree(runDir.resolve(RunStatusSink.FILE).toFile());
    }

    /** The files in a run's checkpoints folder, partial ones included. */
    static List<String> checkpointFiles(Path runDir) {
        try (Stream<Path> s = Files.list(runDir.resolve("checkpoints"))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** A checkpoint is being written now: its temporary file is there. */
    static boolean writing(Path runDir) {
        return checkpointFiles(runDir).stream().anyMatch(f -> f.endsWith(".part"));
    }
}
