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

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointStore;

/**
 * SIGTERM or Ctrl-C while a checkpoint is being written (issue 35), and the hard limit on the stop: the write is
 * held open by a pause between its entries (a fault passed to the CLI's test entry point), the signal lands while
 * its temporary file is there. A real child JVM and real signals.
 */
class SignalDuringCheckpointWriteProcessTest {

    private static final int STEPS_PER_EPOCH = 50;

    private static Path config(Path dir) throws IOException {
        return Files.writeString(dir.resolve("ckpt.json"), """
                {"name": "ckpt", "outputDir": "runs", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": %d, "features": 8}},
                 "stages": [{"epochs": 4, "batchSize": 8}], "checkpoint": {"everyEpochs": 1, "keepBestPerStage": false}}
                """.formatted(STEPS_PER_EPOCH * 8));
    }

    private static int exitCode(String signal) {
        return signal.equals("TERM") ? 143 : 130;
    }

    /** Waits until the checkpoint of {@code step} is being written (its temporary file is there). */
    private static void awaitWriteOf(long step, Path runDir, Process p, Path log) {
        await().atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    assertThat(p.isAlive()).as(readOrEmpty(log)).isTrue();
                    List<String> files = checkpointFiles(runDir);
                    long done = files.stream()
                            .filter(f -> f.startsWith("step-") && f.endsWith(".tdckpt"))
                            .count();
                    return done == step / STEPS_PER_EPOCH - 1 && writing(runDir);
                });
    }

    private static void assertNoPartialCheckpointIsPicked(Path runDir, long newestStep) throws IOException {
        List<Checkpoint.Listed> listed = new CheckpointStore(runDir).list();
        assertThat(listed).allSatisfy(l -> assertThat(l.isValid()).isTrue());
        assertThat(new CheckpointStore(runDir)
                        .latestValid()
                        .orElseThrow()
                        .checkpoint()
                        .globalStep())
                .isEqualTo(newestStep);
    }

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void theWriteInProgressCompletesAndTheRunStopsWithIt(String signal, @TempDir Path dir) throws Exception {
        assumeSignalReaches(signal);
        Path runDir = dir.resolve("runs/ckpt");
        Path log = dir.resolve("stopped.log");
        Process p = start(
                dir,
                "stopped.log",
                "--pause-checkpoint-writes-ms",
                "1500",
                "train",
                config(dir).toString());
        try {
            awaitWriteOf(STEPS_PER_EPOCH, runDir, p, log);
            signal(p, signal);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("stops").isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        String output = Files.readString(log);
        assertThat(p.exitValue()).as(output).isEqualTo(exitCode(signal));
        String file = "step-%09d.tdckpt".formatted(STEPS_PER_EPOCH);
        assertThat(checkpointFiles(runDir)).as("nothing partial is left").containsExactly(file);
        assertNoPartialCheckpointIsPicked(runDir, STEPS_PER_EPOCH);
        assertThat(output).contains("stopped at step " + STEPS_PER_EPOCH).contains("saved " + file);
        JsonNode status = status(runDir);
        assertThat(status.path("status").asText()).as(status.toString()).isEqualTo("stopped");
        assertThat(status.path("message").asText()).contains(file);

        String resumedOutput =
                runToSuccess(dir, "resumed.log", 180, "the resume finishes", "resume", runDir.toString());
        assertThat(resumedOutput)
                .contains("at step " + STEPS_PER_EPOCH + " from " + file)
                .contains("finished:");
    }

    /**
     * The write of step 100 outlasts the hard limit (a pause of 3 s after each of its entries, a limit of 3 s): the
     * process ends without it, and the status and the message name step 50's checkpoint, the newest that exists.
     */
    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void pastTheHardLimitTheStatusAndTheMessageNameTheNewestCheckpoint(String signal, @TempDir Path dir)
            throws Exception {
        assumeSignalReaches(signal);
        Path runDir = dir.resolve("runs/ckpt");
        Path log = dir.resolve("limit.log");
        Process p = start(
                dir,
                "limit.log",
                "--pause-checkpoint-writes-ms",
                "3000",
                "--stop-wait-s",
                "3",
                "train",
                config(dir).toString());
        try {
            awaitWriteOf(2 * STEPS_PER_EPOCH, runDir, p, log);
            signal(p, signal);
            assertThat(p.waitFor(60, TimeUnit.SECONDS))
                    .as("the hard limit ends it")
                    .isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        String output = Files.readString(log);
        assertThat(p.exitValue()).as(output).isEqualTo(exitCode(signal));
        String file = "step-%09d.tdckpt".formatted(STEPS_PER_EPOCH);
        assertNoPartialCheckpointIsPicked(runDir, STEPS_PER_EPOCH);
        assertThat(output)
                .contains("did not stop within 3 s")
                .contains("its newest checkpoint is " + file + " (step " + STEPS_PER_EPOCH + ")")
                .doesNotContain("saved step-%09d".formatted(2 * STEPS_PER_EPOCH));
        JsonNode status = status(runDir);
        assertThat(status.path("status").asText()).as(status.toString()).isEqualTo("stopped");
        assertThat(status.path("message").asText()).contains(file).contains("did not stop within 3 s");
    }

    /** Nothing written yet when the limit passes: the status and the message say so, naming no checkpoint. */
    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void pastTheHardLimitWithNothingSavedTheStatusSaysSo(String signal, @TempDir Path dir) throws Exception {
        assumeSignalReaches(signal);
        Path runDir = dir.resolve("runs/ckpt");
        Path log = dir.resolve("nothing.log");
        Process p = start(
                dir,
                "nothing.log",
                "--pause-checkpoint-writes-ms",
                "3000",
                "--stop-wait-s",
                "3",
                "train",
                config(dir).toString());
        try {
            awaitWriteOf(STEPS_PER_EPOCH, runDir, p, log);
            signal(p, signal);
            assertThat(p.waitFor(60, TimeUnit.SECONDS))
                    .as("the hard limit ends it")
                    .isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        String output = Files.readString(log);
        assertThat(p.exitValue()).as(output).isEqualTo(exitCode(signal));
        assertThat(new CheckpointStore(runDir).list())
                .as("the partial write is not a checkpoint")
                .isEmpty();
        assertThat(output)
                .contains("no checkpoint")
                .doesNotContain("saved step-")
                .doesNotContain("resume with");
        JsonNode status = status(runDir);
        assertThat(status.path("status").asText()).as(status.toString()).isEqualTo("stopped");
        assertThat(status.path("message").asText()).contains("no checkpoint").doesNotContain("step-");
    }

    /** A second signal ends the wait at once (Ctrl-C twice), saying what was saved. */
    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSecondSignalEndsTheProcessAtOnceSayingWhatWasSaved(String signal, @TempDir Path dir) throws Exception {
        assumeSignalReaches(signal);
        Path runDir = dir.resolve("runs/ckpt");
        Path log = dir.resolve("twice.log");
        // each write takes over 90 s: only the second signal can end the process in time
        Process p = start(
                dir,
                "twice.log",
                "--pause-checkpoint-writes-ms",
                "30000",
                "train",
                config(dir).toString());
        try {
            awaitWriteOf(STEPS_PER_EPOCH, runDir, p, log);
            signal(p, signal);
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> readOrEmpty(log).contains("stopping: saving a checkpoint"));
            signal(p, signal);
            assertThat(p.waitFor(30, TimeUnit.SECONDS))
                    .as("the second signal ends it")
                    .isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        String output = Files.readString(log);
        assertThat(p.exitValue()).as(output).isEqualTo(exitCode(signal));
        assertThat(new CheckpointStore(runDir).list()).isEmpty();
        assertThat(output).contains("second signal").contains("no checkpoint").doesNotContain("saved step-");
        JsonNode status = status(runDir);
        assertThat(status.path("status").asText()).as(status.toString()).isEqualTo("stopped");
        assertThat(status.path("message").asText()).contains("no checkpoint");
    }
}
