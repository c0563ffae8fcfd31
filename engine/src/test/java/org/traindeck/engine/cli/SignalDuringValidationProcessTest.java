package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.traindeck.engine.cli.CliProcess.readOrEmpty;
import static org.traindeck.engine.cli.CliProcess.runToSuccess;
import static org.traindeck.engine.cli.CliProcess.signal;
import static org.traindeck.engine.cli.CliProcess.start;
import static org.traindeck.engine.cli.CliProcess.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * SIGTERM or Ctrl-C while a long validation runs (issue 35, item 1): the validation stops, the steps trained so far
 * are saved, the status says "stopped", and the run resumes from that checkpoint. A real child JVM, real signals; the
 * validation is made long by a pause in each of its batches, passed in as a fault.
 */
class SignalDuringValidationProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int STEPS_PER_EPOCH = 50;
    /**
     * 40 validation batches of 512 at 2 s each: the validation (80 s) outlasts the bound on the stop by far, and the
     * bound leaves a loaded machine time to write the checkpoint and exit (20 s was not always enough).
     */
    private static final long VALIDATION_BATCH_PAUSE_MS = 2000;

    private static final Duration STOP_BOUND = Duration.ofSeconds(40);

    private static boolean logged(Path runDir, String metric, long atLeastStep) {
        try {
            for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
                if (line.contains("\"" + metric + "\"")
                        && line.endsWith("}")
                        && JSON.readTree(line).get("step").asLong() >= atLeastStep) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalDuringValidationStopsItAndSavesTheLastFinishedStep(String signal, @TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("val.json"), """
                {"name": "val", "outputDir": "runs", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "samples": %d, "features": 8},
                          "validation": {"type": "synthetic", "samples": 20480, "features": 8}},
                 "stages": [{"epochs": 2, "batchSize": 8}], "checkpoint": {"everyEpochs": 0, "keepBestPerStage": false}}
                """.formatted(STEPS_PER_EPOCH * 8));
        Path runDir = dir.resolve("runs/val");
        Process p = start(
                dir,
                "stopped.log",
                "--pause-validation-batches-ms",
                Long.toString(VALIDATION_BATCH_PAUSE_MS),
                "train",
                config.toString());
        try {
            // train.log says so at once when the first validation begins; it lasts 80 s
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        assertThat(p.isAlive())
                                .as("the child is still training")
                                .isTrue();
                        return readOrEmpty(runDir.resolve("train.log")).contains("validating after epoch 1 ");
                    });
            signal(p, signal);
            assertThat(p.waitFor(STOP_BOUND.toSeconds(), TimeUnit.SECONDS))
                    .as("the validation is cut short")
                    .isTrue();
        } finally {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        String output = Files.readString(dir.resolve("stopped.log"));
        assertThat(p.exitValue()).as(output).isEqualTo(signal.equals("TERM") ? 143 : 130);
        List<Checkpoint.Listed> saved = new CheckpointStore(runDir).list();
        assertThat(saved).as(output).singleElement().satisfies(l -> {
            assertThat(l.isValid()).isTrue();
            assertThat(l.checkpoint().reason()).isEqualTo("stop");
            assertThat(l.checkpoint().globalStep()).isEqualTo(STEPS_PER_EPOCH);
        });
        String file = saved.get(0).file().getFileName().toString();
        assertThat(output)
                .contains("stopping: saving a checkpoint of step " + STEPS_PER_EPOCH)
                .contains("stopped at step " + STEPS_PER_EPOCH)
                .contains(file)
                .contains("resume with: traindeck resume")
                .doesNotContain("intact");
        JsonNode status = status(runDir);
        assertThat(status.path("status").asText()).as(status.toString()).isEqualTo("stopped");
        assertThat(logged(runDir, "val/loss", 0))
                .as("the cut validation published nothing")
                .isFalse();

        // the resume validates the epoch the signal cut, then trains the second one
        String resumedOutput =
                runToSuccess(dir, "resumed.log", 120, "the resume finishes", "resume", runDir.toString());
        assertThat(resumedOutput)
                .contains("at step " + STEPS_PER_EPOCH + " from " + file)
                .contains("finished:");
        assertThat(logged(runDir, "val/loss", STEPS_PER_EPOCH)).isTrue();
        assertThat(logged(runDir, "train/loss", 2 * STEPS_PER_EPOCH)).isTrue();
    }
}
