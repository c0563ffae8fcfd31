package org.traindeck.engine.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/** A full disk and a diverging loss, injected at a chosen step. */
class FailureInjectionTest {

    private static RunConfig config(Path dir, String extra) {
        return ConfigParser.parse("""
                {"name": "inject", "outputDir": "out", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 4, "batchSize": 20}] %s}
                """.formatted(extra), dir).orThrow();
    }

    private static List<String> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aFullDiskKeepsThePreviousCheckpointAndTrainingGoesOn(@TempDir Path dir) throws Exception {
        RunResult r = TrainingRun.open(RunRequest.of(config(dir, ", \"checkpoint\": {\"keepBestPerStage\": false}"))
                        .on(DeviceDiscovery.system())
                        .withFaults(FaultPlan.NONE.diskFullFromStep(16)))
                .runHere();

        // trained to the end, but said to be incomplete: the checkpoints after step 8 are missing
        assertThat(r.status()).isEqualTo(RunResult.Status.INCOMPLETE);
        assertThat(r.message()).contains("some files could not be written: checkpoints (the disk is full");
        assertThat(r.steps()).isEqualTo(32);
        Path folder = r.runDir().resolve("checkpoints");
        assertThat(files(folder)).containsExactly("step-000000008.tdckpt");
        assertThat(new CheckpointStore(r.runDir())
                        .latestValid()
                        .orElseThrow()
                        .checkpoint()
                        .globalStep())
                .isEqualTo(8);
        assertThat(r.lastCheckpoint()).isEqualTo(folder.resolve("step-000000008.tdckpt"));
        String log = Files.readString(r.runDir().resolve("train.log"));
        assertThat(log)
                .contains("could not be written: the disk is full")
                .contains("The previous checkpoint, step-000000008.tdckpt, is intact.");
    }

    @Test
    void aFullDiskCanStopTheRunInstead(@TempDir Path dir) throws Exception {
        RunResult r = TrainingRun.open(RunRequest.of(config(
                                dir, ", \"checkpoint\": {\"onWriteError\": \"stop\", \"keepBestPerStage\": false}"))
                        .on(DeviceDiscovery.system())
                        .withFaults(FaultPlan.NONE.diskFullFromStep(16)))
                .runHere();

        assertThat(r.status()).isEqualTo(RunResult.Status.STOPPED);
        assertThat(r.message()).contains("because a checkpoint could not be written");
        assertThat(r.steps()).isEqualTo(16);
        assertThat(files(r.runDir().resolve("checkpoints"))).containsExactly("step-000000008.tdckpt");
    }

    @Test
    void aNanLossStopsBeforeTheUpdateWithTheLastCheckpointIntact(@TempDir Path dir) throws Exception {
        RunResult r = TrainingRun.open(RunRequest.of(config(dir, ""))
                        .on(DeviceDiscovery.system())
                        .withFaults(FaultPlan.NONE.nanAtStep(13)))
                .runHere();

        assertThat(r.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(r.steps()).isEqualTo(13);
        assertThat(r.message())
                .contains("the loss became NaN at step 13")
                .contains("stopped before the update")
                .contains("lower learning rate")
                .contains("step-000000008.tdckpt, is intact");
        CheckpointFiles.Contents last = CheckpointFiles.read(r.lastCheckpoint());
        assertThat(last.checkpoint().globalStep()).isEqualTo(8);
        for (float p : last.params()) {
            assertThat(Float.isFinite(p)).isTrue();
        }
    }

    @Test
    void skipPolicySkipsTheBadBatchAndFinishes(@TempDir Path dir) throws Exception {
        RunResult r = TrainingRun.open(RunRequest.of(config(dir, ", \"onNonFinite\": \"skip\""))
                        .on(DeviceDiscovery.system())
                        .withFaults(FaultPlan.NONE.nanAtStep(13)))
                .runHere();

        assertThat(r.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(r.steps()).isEqualTo(32);
        assertThat(Files.readString(r.runDir().resolve("train.log"))).contains("batch skipped (onNonFinite: skip)");
        for (float p : CheckpointFiles.read(r.lastCheckpoint()).params()) {
            assertThat(Float.isFinite(p)).isTrue();
        }
    }
}
