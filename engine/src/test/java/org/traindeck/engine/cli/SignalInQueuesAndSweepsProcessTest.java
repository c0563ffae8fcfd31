package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.traindeck.engine.cli.CliProcess.assumeSignalReaches;
import static org.traindeck.engine.cli.CliProcess.checkpointFiles;
import static org.traindeck.engine.cli.CliProcess.readOrEmpty;
import static org.traindeck.engine.cli.CliProcess.runToSuccess;
import static org.traindeck.engine.cli.CliProcess.signal;
import static org.traindeck.engine.cli.CliProcess.start;
import static org.traindeck.engine.cli.CliProcess.status;
import static org.traindeck.engine.cli.CliProcess.writing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.queue.RunQueue;

/**
 * SIGTERM and Ctrl-C in {@code traindeck queue run} and {@code traindeck sweep} (issue 35): the run in progress saves a
 * checkpoint, its status and its queue entry say "stopped", and running the queue or the sweep again continues it from
 * that checkpoint. Real child JVMs and real signals.
 */
class SignalInQueuesAndSweepsProcessTest {

    private static final int STEPS_PER_EPOCH = 100;

    private static int exitCode(String signal) {
        return signal.equals("TERM") ? 143 : 130;
    }

    private static List<QueueEntry> entries(Path queue) {
        try {
            return RunQueue.open(queue).entries();
        } catch (IOException e) {
            return List.of(); // being replaced at this instant, or not there yet: read again
        }
    }

    /** Three short epochs with a checkpoint after each: the run waits in the first one's write for the signal. */
    private static String base(String name, String devices) {
        return """
                {"name": "%s", "outputDir": "runs", "devices": "%s", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": %d, "features": 8}},
                 "stages": [{"epochs": 3, "batchSize": 8}], "checkpoint": {"everyEpochs": 1, "keepBestPerStage": false}}
                """.formatted(name, devices, STEPS_PER_EPOCH * 8);
    }

    /** The entry's run is writing its first checkpoint (held open by the pause the test's entry point injects). */
    private static void awaitFirstWrite(Path queue, int entry, Process p, Path log) {
        await().atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    assertThat(p.isAlive()).as(readOrEmpty(log)).isTrue();
                    List<QueueEntry> e = entries(queue);
                    return e.size() > entry
                            && e.get(entry).status() == QueueEntry.Status.RUNNING
                            && e.get(entry).runDir() != null
                            && writing(e.get(entry).runDir());
                });
    }

    private static void assertStoppedWithItsCheckpoint(QueueEntry entry, String output) throws IOException {
        assertThat(entry.status()).as(output).isEqualTo(QueueEntry.Status.STOPPED);
        Path runDir = entry.runDir();
        String file = "step-%09d.tdckpt".formatted(STEPS_PER_EPOCH);
        assertThat(checkpointFiles(runDir)).containsExactly(file);
        Checkpoint saved =
                new CheckpointStore(runDir).latestValid().orElseThrow().checkpoint();
        assertThat(saved.globalStep()).isEqualTo(STEPS_PER_EPOCH);
        assertThat(saved.reason()).isEqualTo("stop");
        assertThat(status(runDir).path("status").asText()).isEqualTo("stopped");
        assertThat(output).contains(entry.label() + ": stopped at step " + STEPS_PER_EPOCH + "; saved " + file);
    }

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalStopsTheQueuesRunWithACheckpointAndTheQueueContinuesIt(String signal, @TempDir Path dir)
            throws Exception {
        assumeSignalReaches(signal);
        Files.writeString(dir.resolve("a.json"), base("a", "cpu"));
        Files.writeString(dir.resolve("b.json"), base("b", "cpu"));
        Path queue = dir.resolve("runs/queue.json");
        Process add = start(dir, "add.log", "queue", "add", "a.json", "b.json", "--output", "runs");
        assertThat(add.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(add.exitValue()).as(readOrEmpty(dir.resolve("add.log"))).isZero();

        Path log = dir.resolve("stopped.log");
        Process p =
                start(dir, "stopped.log", "--pause-checkpoint-writes-ms", "1500", "queue", "run", "--output", "runs");
        try {
            awaitFirstWrite(queue, 0, p, log);
            signal(p, signal);
            assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("stops").isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.readString(log);
        assertThat(p.exitValue()).as(output).isEqualTo(exitCode(signal));
        List<QueueEntry> stopped = entries(queue);
        assertStoppedWithItsCheckpoint(stopped.get(0), output);
        assertThat(stopped.get(1).status()).isEqualTo(QueueEntry.Status.PENDING);
        assertThat(output).contains("run the queue again");

        String continued =
                runToSuccess(dir, "again.log", 240, "the queue finishes", "queue", "run", "--output", "runs");
        assertThat(continued)
                .contains("== a: resuming in " + stopped.get(0).runDir())
                .contains("at step " + STEPS_PER_EPOCH + " from step-%09d.tdckpt".formatted(STEPS_PER_EPOCH));
        assertThat(entries(queue)).extracting(QueueEntry::status).containsOnly(QueueEntry.Status.FINISHED);
    }

    /**
     * The hard limit in a queue: the first checkpoint's write outlasts it (3 s after each entry, a limit of 3 s), so
     * the run is given up with nothing saved; the queue file records it as stopped and its status says that no
     * checkpoint was written, naming none.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void pastTheHardLimitTheQueueRecordsTheRunAsStoppedWithWhatItSaved(String signal, @TempDir Path dir)
            throws Exception {
        assumeSignalReaches(signal);
        Files.writeString(dir.resolve("a.json"), base("a", "cpu"));
        Path queue = dir.resolve("runs/queue.json");
        Process add = start(dir, "add.log", "queue", "add", "a.json", "--output", "runs");
        assertThat(add.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(add.exitValue()).as(readOrEmpty(dir.resolve("add.log"))).isZero();

        Path log = dir.resolve("limit.log");
        Process p = start(
                dir,
                "limit.log",
                "--pause-checkpoint-writes-ms",
                "3000",
                "--stop-wait-s",
                "3",
                "queue",
                "run",
                "--output",
                "runs");
        try {
            awaitFirstWrite(queue, 0, p, log);
            signal(p, signal);
            assertThat(p.waitFor(60, TimeUnit.SECONDS))
                    .as("the hard limit ends it")
                    .isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.readString(log);
        assertThat(p.exitValue()).as(output).isEqualTo(exitCode(signal));
        QueueEntry entry = entries(queue).get(0);
        assertThat(entry.status()).as(output).isEqualTo(QueueEntry.Status.STOPPED);
        assertThat(new CheckpointStore(entry.runDir()).list()).isEmpty();
        assertThat(status(entry.runDir()).path("status").asText()).isEqualTo("stopped");
        assertThat(status(entry.runDir()).path("message").asText())
                .contains("did not stop within 3 s")
                .contains("no checkpoint was written")
                .doesNotContain("step-");
        assertThat(output)
                .contains("a: stopped: it did not stop within 3 s; no checkpoint was written")
                .doesNotContain("saved step-");
    }

    /** A sweep of one trial at a time trains in the sweep's own JVM. */
    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalStopsTheSweepsTrialWithACheckpointAndTheSweepContinuesIt(String signal, @TempDir Path dir)
            throws Exception {
        assumeSignalReaches(signal);
        Files.writeString(dir.resolve("base.json"), base("base", "cpu"));
        Path sweep = Files.writeString(dir.resolve("sweep.json"), """
                {"name": "sig", "base": "base.json", "parameters": {"stages[0].optimizer.learningRate": [0.001, 0.01]},
                 "metric": "train/loss", "goal": "min"}
                """);
        Path queue = dir.resolve("runs/sweep-sig.json");
        Path log = dir.resolve("stopped.log");
        Process p = start(dir, "stopped.log", "--pause-checkpoint-writes-ms", "1500", "sweep", sweep.toString());
        try {
            awaitFirstWrite(queue, 0, p, log);
            signal(p, signal);
            assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("stops").isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.readString(log);
        assertThat(p.exitValue()).as(output).isEqualTo(exitCode(signal));
        List<QueueEntry> stopped = entries(queue);
        assertStoppedWithItsCheckpoint(stopped.get(0), output);
        assertThat(stopped.get(1).status()).isEqualTo(QueueEntry.Status.PENDING);
        assertThat(output).contains("run the sweep again");

        String continued = runToSuccess(dir, "again.log", 240, "the sweep finishes", "sweep", sweep.toString());
        assertThat(continued)
                .contains("== sig-1: resuming in " + stopped.get(0).runDir())
                .contains("at step " + STEPS_PER_EPOCH + " from step-%09d.tdckpt".formatted(STEPS_PER_EPOCH));
        assertThat(entries(queue)).extracting(QueueEntry::status).containsOnly(QueueEntry.Status.FINISHED);
    }

    /** The highest step a run has logged a loss for (0 before any). */
    private static long loggedStep(Path runDir) {
        long step = 0;
        for (String line : readOrEmpty(runDir.resolve("metrics.jsonl")).lines().toList()) {
            if (line.contains("\"train/loss\"") && line.endsWith("}")) {
                Matcher m = STEP.matcher(line);
                if (m.find()) {
                    step = Math.max(step, Long.parseLong(m.group(1)));
                }
            }
        }
        return step;
    }

    private static final Pattern STEP = Pattern.compile("\"step\":(\\d+)");

    /**
     * Trials at once train each in a process of its own: the sweep's process asks each to stop, waits for their
     * checkpoints and records them; started again, the sweep continues both from there.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalStopsTrialProcessesWithCheckpointsAndTheSweepContinuesThem(String signal, @TempDir Path dir)
            throws Exception {
        assumeSignalReaches(signal);
        // long trials: the signal always lands in the middle of both
        Files.writeString(dir.resolve("base.json"), """
                {"name": "base", "outputDir": "runs", "devices": "cpu:2", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": 4000, "features": 8}},
                 "stages": [{"epochs": 200, "batchSize": 8}], "checkpoint": {"everyEpochs": 0, "keepBestPerStage": false}}
                """);
        Path sweep = Files.writeString(dir.resolve("sweep.json"), """
                {"name": "pair", "base": "base.json", "parameters": {"stages[0].optimizer.learningRate": [0.001, 0.01]},
                 "metric": "train/loss", "goal": "min", "concurrent": 2}
                """);
        Path queue = dir.resolve("runs/sweep-pair.json");
        Path log = dir.resolve("stopped.log");
        Process p = start(dir, "stopped.log", "sweep", sweep.toString());
        try {
            await().atMost(Duration.ofSeconds(240))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        assertThat(p.isAlive()).as(readOrEmpty(log)).isTrue();
                        List<QueueEntry> e = entries(queue);
                        return e.size() == 2
                                && e.stream()
                                        .allMatch(q -> q.status() == QueueEntry.Status.RUNNING
                                                && q.runDir() != null
                                                && loggedStep(q.runDir()) >= 20);
                    });
            signal(p, signal);
            assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("stops").isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.readString(log);
        assertThat(p.exitValue()).as(output).isEqualTo(exitCode(signal));
        List<QueueEntry> stopped = entries(queue);
        for (QueueEntry e : stopped) {
            assertThat(e.status()).as(output).isEqualTo(QueueEntry.Status.STOPPED);
            List<Checkpoint.Listed> saved = new CheckpointStore(e.runDir()).list();
            assertThat(saved).singleElement().satisfies(l -> {
                assertThat(l.isValid()).isTrue();
                assertThat(l.checkpoint().reason()).isEqualTo("stop");
                assertThat(l.checkpoint().globalStep()).isGreaterThanOrEqualTo(20);
            });
            assertThat(status(e.runDir()).path("status").asText()).isEqualTo("stopped");
            assertThat(output)
                    .contains(e.label() + ": stopped at step "
                            + saved.get(0).checkpoint().globalStep() + "; saved "
                            + saved.get(0).file().getFileName());
        }

        // started again, the sweep continues both trials from their stop checkpoints (and a signal stops them again)
        List<Path> stopFiles = new ArrayList<>();
        for (QueueEntry e : stopped) {
            stopFiles.add(
                    new CheckpointStore(e.runDir()).latestValid().orElseThrow().file());
        }
        Path againLog = dir.resolve("again.log");
        Process again = start(dir, "again.log", "sweep", sweep.toString());
        try {
            await().atMost(Duration.ofSeconds(240))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        assertThat(again.isAlive()).as(readOrEmpty(againLog)).isTrue();
                        return stopFiles.stream()
                                .allMatch(f -> readOrEmpty(
                                                f.getParent().getParent().resolve("train.log"))
                                        .contains("resuming from " + f));
                    });
            signal(again, signal);
            assertThat(again.waitFor(90, TimeUnit.SECONDS)).as("stops again").isTrue();
        } finally {
            again.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        String continued = Files.readString(againLog);
        assertThat(again.exitValue()).as(continued).isEqualTo(exitCode(signal));
        for (QueueEntry e : stopped) {
            assertThat(continued).contains("== " + e.label() + ": resuming in " + e.runDir());
        }
        assertThat(entries(queue)).extracting(QueueEntry::status).containsOnly(QueueEntry.Status.STOPPED);
    }
}
