package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Can the replicas of one "cpu:2" run (synchronous all-reduce: two copies of a model stepping at once in one JVM) hit
 * the native race that crashed two sweep trials sharing a JVM (SIGSEGV in libnd4jcpu's TadDescriptor, from
 * execBroadcast in an output layer's backprop)? Many short cpu:2 runs, in batches, each batch in a JVM of its own with
 * its crash log in this test's folder; any crash fails the test with the frames of its log. Long, so not in the default
 * build: -Dtraindeck.stressMinutes=20 (how long to keep starting batches). The control, two single-device runs at once
 * in one JVM (how sweep trials crashed): -Dtraindeck.stressPairsMinutes=20. The figures go to
 * target/replica-stress-MODE.txt.
 */
class ReplicaStressTest {

    private static final int RUNS_PER_PROCESS = 20;

    @Test
    @EnabledIfSystemProperty(named = "traindeck.stressMinutes", matches = "\\d+(\\.\\d+)?")
    void manyShortCpu2RunsNeverCrashTheirJvm(@TempDir Path dir) throws Exception {
        stress(dir, "replicas", Double.parseDouble(System.getProperty("traindeck.stressMinutes")));
    }

    @Test
    @EnabledIfSystemProperty(named = "traindeck.stressPairsMinutes", matches = "\\d+(\\.\\d+)?")
    void manyPairsOfShortRunsInOneJvmNeverCrashIt(@TempDir Path dir) throws Exception {
        stress(dir, "pairs", Double.parseDouble(System.getProperty("traindeck.stressPairsMinutes")));
    }

    private static void stress(Path dir, String mode, double minutes) throws Exception {
        long deadline = System.nanoTime() + Math.round(minutes * 60e9);
        int processes = 0;
        int runs = 0;
        long steps = 0;
        List<String> crashes = new ArrayList<>();
        long started = System.nanoTime();
        while (System.nanoTime() < deadline) {
            Path out = Files.createDirectories(dir.resolve("batch-" + processes));
            Path log = out.resolve("process.log");
            Process p = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-Xmx512m",
                            "-XX:ErrorFile=" + out.resolve("hs_err_pid%p.log"),
                            "-XX:-CreateCoredumpOnCrash",
                            "-Dorg.deeplearning4j.resources.directory=" + dir.resolve("dl4j"),
                            "-cp",
                            System.getProperty("java.class.path"),
                            ShortReplicaRunsMain.class.getName(),
                            out.toString(),
                            String.valueOf(RUNS_PER_PROCESS),
                            mode)
                    .directory(out.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            boolean ended = p.waitFor(20, TimeUnit.MINUTES);
            if (!ended) {
                p.destroyForcibly().waitFor();
            }
            processes++;
            List<String> lines = Files.readAllLines(log);
            for (String l : lines) {
                if (l.startsWith("ok ")) {
                    runs++;
                    steps += Long.parseLong(l.substring(l.lastIndexOf(' ') + 1));
                    assertThat(l).as("each run trains to its end").startsWith("ok FINISHED");
                }
            }
            if (!ended || p.exitValue() != 0) {
                crashes.add("process " + processes + " (exit " + (ended ? p.exitValue() : "hung") + ") after "
                        + lines.stream().filter(l -> l.startsWith("ok ")).count() + " run(s): " + frames(out));
            }
            clean(out);
        }
        String report = String.format(
                Locale.ROOT,
                "stress (%s): %d process(es), %d run(s), %d steps in %.1f min; crashes: %d%n%s",
                mode,
                processes,
                runs,
                steps,
                (System.nanoTime() - started) / 60e9,
                crashes.size(),
                String.join(System.lineSeparator(), crashes));
        System.out.println(report);
        Files.writeString(Path.of("target", "replica-stress-" + mode + ".txt"), report);
        assertThat(crashes).as(report).isEmpty();
    }

    /** The problematic frame and the first native frames of the batch's crash log, if it has one. */
    private static String frames(Path out) throws IOException {
        try (Stream<Path> s = Files.list(out)) {
            Path log = s.filter(p -> p.getFileName().toString().startsWith("hs_err_pid"))
                    .findFirst()
                    .orElse(null);
            if (log == null) {
                return "no crash log";
            }
            Path kept = Path.of("target", "replica-stress-" + log.getFileName());
            Files.copy(log, kept, StandardCopyOption.REPLACE_EXISTING);
            List<String> lines = Files.readAllLines(log);
            List<String> picked = new ArrayList<>();
            for (String l : lines) {
                if (l.startsWith("# Problematic frame")
                        || l.startsWith("# C  ")
                        || l.startsWith("C  [")
                        || l.startsWith("j  ")) {
                    picked.add(l);
                }
                if (picked.size() > 12) {
                    break;
                }
            }
            return kept + ": " + String.join(" | ", picked);
        }
    }

    /** Each batch's runs are deleted once counted: hours of runs would fill the disk. */
    private static void clean(Path out) throws IOException {
        try (Stream<Path> all = Files.walk(out)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
