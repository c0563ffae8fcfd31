package org.traindeck.engine.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Engine;

class RunFolderTest {

    @Test
    void namesTheFilesOfARunAsTheyAreOnDisk(@TempDir Path dir) {
        RunFolder run = RunFolder.of(dir);

        assertThat(run.config()).isEqualTo(dir.resolve("config.json"));
        assertThat(run.resumeConfig(2)).isEqualTo(dir.resolve("config.resume-2.json"));
        assertThat(run.metricsJsonl()).isEqualTo(dir.resolve("metrics.jsonl"));
        assertThat(run.metricsCsv()).isEqualTo(dir.resolve("metrics.csv"));
        assertThat(run.log()).isEqualTo(dir.resolve("train.log"));
        assertThat(run.status()).isEqualTo(dir.resolve("status.json"));
        assertThat(run.histograms()).isEqualTo(dir.resolve("histograms.jsonl"));
        assertThat(run.evaluation(false)).isEqualTo(dir.resolve("evaluation.json"));
        assertThat(run.evaluation(true)).isEqualTo(dir.resolve("evaluation-ema.json"));
        assertThat(run.samples()).isEqualTo(dir.resolve("samples"));
        assertThat(run.tensorboard()).isEqualTo(dir.resolve("tensorboard"));
        assertThat(run.checkpoints()).isEqualTo(dir.resolve("checkpoints"));
        assertThat(run.lock()).isEqualTo(dir.resolve(".traindeck.lock"));
    }

    @Test
    void aResumeTargetNamesItsRunFolder(@TempDir Path dir) throws IOException {
        Path run = Files.createDirectories(dir.resolve("digits"));
        Path checkpoints = Files.createDirectories(RunFolder.of(run).checkpoints());
        Path file = Files.writeString(checkpoints.resolve("epoch-1.tdckpt"), "x");

        assertThat(Engine.runFolderOf(run)).isEqualTo(run);
        assertThat(Engine.runFolderOf(checkpoints)).isEqualTo(run);
        assertThat(Engine.runFolderOf(file)).isEqualTo(run);
    }
}
