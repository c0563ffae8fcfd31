package org.traindeck.engine.model.fit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.model.ModelCheck;

/**
 * The fit estimate of a model that is mostly the patch embedding kernel (64x64 RGB images in 8x8 patches, batch 32)
 * against what 3 real training steps keep. The kernel keeps the image, its patch rows (and their gradient) and the
 * projected tokens in buffers of its own, on the heap and natively: several times its output.
 */
class PatchBuffersFitTest {

    @Test
    void theEstimateCountsThePatchKernelsBuffers(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("m.json"), """
                {"name": "m", "seed": 3, "model": {"type": "graph", "layers": [
                   {"name": "tokens", "type": "patches", "size": 8, "units": 64},
                   {"type": "globalPool"}]},
                 "data": {"train": {"type": "synthetic", "samples": 96, "imageShape": [64, 64, 3], "numClasses": 4}},
                 "stages": [{"epochs": 1, "batchSize": 32, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """);
        ModelCheck.Checked checked = ModelCheck.checkWithSummary(ConfigParser.load(file));
        RunConfig config = checked.result().orThrow();
        StageConfig stage = config.stages().get(0);
        FitEstimate estimate = FitEstimate.model(
                        checked.conf(), checked.input(), checked.summary().parameters(), stage)
                .at(stage.batchSize());

        long kept = KeptByTraining.inOwnJvm(file, 3);

        assertThat(estimate.fromReport()).isFalse();
        assertThat((double) estimate.total() / kept)
                .as("estimate %d bytes, kept %d bytes", estimate.total(), kept)
                .isBetween(0.9, 1.5);
    }
}
