package org.traindeck.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.cli.Main;
import org.traindeck.engine.sinks.RunStatusSink;

/**
 * The CLI as a user runs it, in a process of its own, against a real master and worker on 127.0.0.1 shared by the
 * tests (issue 35, items 2 and 5). SIGTERM to the driver: Spark's own shutdown hook must not stop the Spark driver
 * while TrainDeck finishes the step in flight and saves it; every repeat, stopped at a step that differs from the last,
 * must end "stopped" with the last finished step saved and named. {@code mvn verify} runs 2 repeats;
 * {@code -Dtraindeck.clusterStops=10} runs the 10. A killed executor, a wrong secret and a frozen master each
 * end in one line naming the cause, with no stack trace on the terminal (Spark's own logging is in train.log).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DIGITS =
            Path.of("..", "data", "digits", "digits.csv.gz").toAbsolutePath().normalize();
    /** A line of a Java stack trace, or the line that heads one ("java.net.SocketException: ..."). */
    private static final Pattern STACK_TRACE =
            Pattern.compile("(?m)^\\s+at [\\w$.]+\\(|^Caused by: |^\\s*[\\w$]+(\\.[\\w$]+)+(Exception|Error)\\b");

    @TempDir
    static Path dir;

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = new LocalCluster(dir);
        cluster.startMaster().startWorkers(1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void everySigtermSavesTheLastFinishedStep() throws Exception {
        int repeats = Integer.getInteger("traindeck.clusterStops", 2);
        List<String> outcomes = new ArrayList<>();
        int saved = 0;
        for (int i = 0; i < repeats; i++) {
            long t0 = System.nanoTime();
            String failure = stopOnce(i);
            outcomes.add(String.format(
                    "stop %d: %s (%.0f s)",
                    i + 1, failure == null ? "saved" : failure, (System.nanoTime() - t0) / 1e9));
            if (failure == null) {
                saved++;
            }
        }
        System.out.println(String.join("\n", outcomes));
        assertThat(saved).as(String.join("\n", outcomes)).isEqualTo(repeats);
    }

    /** One run stopped by SIGTERM; null when it saved its last finished step, else what went wrong. */
    private static String stopOnce(int i) throws Exception {
        String name = "stop-" + i;
        Path runDir = dir.resolve("runs").resolve(name);
        Path output = dir.resolve(name + ".out");
        Process p = train(name, cluster.secretFile, output);
        long signalledAfter = 3 + i % 4;
        try {
            await().atMost(Duration.ofSeconds(300))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        assertThat(p.isAlive())
                                .as("the run still trains: %s", read(output))
                                .isTrue();
                        return lastStep(runDir) >= signalledAfter;
                    });
            signal("TERM", p.pid());
            assertThat(p.waitFor(120, TimeUnit.SECONDS))
                    .as("the run ends after SIGTERM")
                    .isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String out = read(output);
        JsonNode status = JSON.readTree(runDir.resolve(RunStatusSink.FILE).toFile());
        long last = lastStep(runDir);
        Checkpoint.Listed newest = new CheckpointStore(runDir)
                .list().stream()
                        .filter(Checkpoint.Listed::isValid)
                        .max(Comparator.comparingLong(l -> l.checkpoint().globalStep()))
                        .orElse(null);
        List<String> problems = new ArrayList<>();
        if (!"stopped".equals(status.path("status").asText())) {
            problems.add("status " + status.path("status").asText());
        }
        if (newest == null) {
            problems.add("no checkpoint");
        } else if (newest.checkpoint().globalStep() != last) {
            problems.add("newest checkpoint at step " + newest.checkpoint().globalStep() + ", last step " + last);
        } else if (!out.contains("stopped at step " + last)
                || !out.contains(newest.file().getFileName().toString())) {
            problems.add("the output does not name step " + last + " and "
                    + newest.file().getFileName());
        }
        if (p.exitValue() != 143) {
            problems.add("exit " + p.exitValue());
        }
        if (STACK_TRACE.matcher(out).find()) {
            problems.add("a stack trace on the terminal");
        }
        return problems.isEmpty()
                ? null
                : String.join(", ", problems) + " (signalled after step " + signalledAfter + ")\n" + out;
    }

    @Test
    @Order(2)
    void aKilledExecutorIsOneLineOnTheTerminalAndSparksTraceStaysInTheLog() throws Exception {
        Path runDir = dir.resolve("runs").resolve("executor-lost");
        Path output = dir.resolve("executor-lost.out");
        Process p = train("executor-lost", cluster.secretFile, output);
        try {
            await().atMost(Duration.ofSeconds(300))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        assertThat(p.isAlive())
                                .as("the run still trains: %s", read(output))
                                .isTrue();
                        return lastStep(runDir) >= 3;
                    });
            List<ProcessHandle> executors = cluster.executors();
            assertThat(executors).hasSize(1);
            executors.get(0).destroyForcibly();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the run ends").isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String out = read(output);
        System.out.println("executor lost, the terminal:\n" + out);
        assertThat(p.exitValue()).as(out).isEqualTo(Main.RUN_FAILED);
        assertThat(out).containsPattern("executor \\d+ on 127\\.0\\.0\\.1 was lost");
        assertThat(out.lines().filter(l -> l.contains("was lost")).count())
                .as("lines that say so: %s", out)
                .isEqualTo(1);
        assertThat(STACK_TRACE.matcher(out).find()).as(out).isFalse();
        assertThat(read(runDir.resolve("train.log"))).contains("spark: ");
    }

    @Test
    @Order(3)
    void aWrongSecretIsSaidAsOneLine() throws Exception {
        Path wrong = dir.resolve("wrong-secret");
        ClusterSecret.generate(wrong);
        Path output = dir.resolve("wrong-secret.out");
        Process p = train("wrong-secret", wrong, output);
        try {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the run ends").isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String out = read(output);
        System.out.println("wrong secret, the terminal:\n" + out);
        assertThat(p.exitValue()).as(out).isEqualTo(Main.RUN_FAILED);
        assertThat(out)
                .contains("the master at 127.0.0.1:" + cluster.port + " refused this driver")
                .contains("a wrong cluster secret?");
        assertThat(STACK_TRACE.matcher(out).find()).as(out).isFalse();
    }

    /** Last: the master is frozen for its duration (SIGSTOP), and let go (SIGCONT) whatever happens. */
    @Test
    @Order(4)
    void aFrozenMasterIsNotCalledAWrongSecret() throws Exception {
        Path output = dir.resolve("frozen-master.out");
        signal("STOP", cluster.masterPid());
        Process p = null;
        try {
            p = train("frozen-master", cluster.secretFile, output);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the run ends").isTrue();
        } finally {
            signal("CONT", cluster.masterPid());
            if (p != null) {
                p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
        String out = read(output);
        System.out.println("frozen master, the terminal:\n" + out);
        assertThat(p.exitValue()).as(out).isEqualTo(Main.RUN_FAILED);
        assertThat(out)
                .contains("the master at 127.0.0.1:" + cluster.port
                        + " accepted the connection but did not answer within 15 s")
                .contains("frozen")
                .doesNotContain("secret");
        assertThat(STACK_TRACE.matcher(out).find()).as(out).isFalse();
    }

    /** {@code traindeck train} in a JVM of its own: 20 epochs of the digits LeNet on one executor. */
    private static Process train(String name, Path secretFile, Path output) throws IOException {
        Path config =
                Files.writeString(dir.resolve(name + ".json"), """
                {"name": "%s", "outputDir": "runs", "seed": 11, "devices": "cpu",
                 "model": {"type": "lenet", "channels": [8, 16], "kernelSize": 3, "dense": 32, "dropout": 0},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "imageShape": [8, 8, 1], "normalize": "minmax"},
                          "validationSplit": 0.2},
                 "stepTimeoutSeconds": 60,
                 "stages": [{"epochs": 20, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.003}}],
                 "checkpoint": {"keepBestPerStage": false, "everyEpochs": 0},
                 "parallel": {"cluster": "%s", "executors": 1, "clusterSecretFile": "%s"}}
                """.formatted(name, DIGITS, cluster.url(), secretFile));
        return new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx1g",
                        // as ./traindeck starts a cluster run's driver
                        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                        "--add-opens=java.base/java.nio=ALL-UNNAMED",
                        "--add-opens=java.base/java.lang=ALL-UNNAMED",
                        "--add-opens=java.base/java.util=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "train",
                        config.toString())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
    }

    private static void signal(String name, long pid) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                        .start()
                        .waitFor())
                .as("kill -%s %d", name, pid)
                .isZero();
    }

    /** The last step with a training loss in metrics.jsonl, 0 before the first. */
    private static long lastStep(Path runDir) {
        long last = 0;
        try {
            for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
                if (line.contains("\"train/loss\"") && line.endsWith("}")) {
                    JsonNode e = JSON.readTree(line);
                    if (!e.hasNonNull("device")) {
                        last = Math.max(last, e.get("step").asLong());
                    }
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return last;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }
}
