package org.traindeck.engine.train.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.CascadeFixtures;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.Downsampling;
import org.traindeck.engine.data.SampleShape;

/**
 * A derived input in the batches: validation's is the clean sample pooled and upsampled exactly; training's adds
 * Gaussian noise of the configured deviation, drawn per example, the same in every batch cut of the epoch.
 */
class DerivedInputBatchesTest {

    private static RunConfig config(Path dir, double noise) throws Exception {
        CascadeFixtures.pictures(dir.resolve("pictures.npz"));
        return ConfigParser.parse("""
                        {"name": "derived", "seed": 3,
                         "model": {"type": "graph", "layers": [
                           {"name": "both", "type": "concat", "inputs": ["noisy", "lowres", "timestep"]}]},
                         "data": {"train": {"type": "numpy", "task": "diffusion", "targets": "pictures.npz:high",
                                            "derive": {"lowres": {"downsample": 4, "noise": %s}}}},
                         "stages": [{"epochs": 1}]}
                        """.formatted(noise), dir).orThrow();
    }

    @Test
    void trainingBatchesNoiseTheDerivedInputAndValidationsDoNot(@TempDir Path dir) throws Exception {
        RunConfig config = config(dir, 0.5);
        try (DataLoader.Loaded data = DataLoader.load(config, config.data(), "data")) {
            Dataset train = data.train();
            assertThat(train.inputs().get(2).name()).isEqualTo("lowres");
            SampleShape shape = train.inputs().get(0).shape();
            BatchMaker maker = new BatchMaker(train, true, null, DataType.FLOAT);
            int[] order = BatchMaker.epochOrder(train.size(), true, 3, 0, 0);
            float[] clean = maker.batch(order, 0, 16, 3, 0, 0, false)
                    .inputs()[2]
                    .dup()
                    .data()
                    .asFloat();
            float[] noised = maker.batch(order, 0, 16, 3, 0, 0, true)
                    .inputs()[2]
                    .dup()
                    .data()
                    .asFloat();
            // the same examples cut in batches of 4 draw the same noise
            float[] inQuarters = maker.batch(order, 1, 4, 3, 0, 0, true)
                    .inputs()[2]
                    .dup()
                    .data()
                    .asFloat();

            int d = shape.values();
            float[] target = new float[d];
            float[] low = new float[Downsampling.pooled(shape, 4).values()];
            float[] expected = new float[d];
            double sumSquares = 0;
            for (int i = 0; i < 16; i++) {
                train.copyTargets(order[i], target, 0);
                Downsampling.pool(target, shape, 4, low, 0);
                Downsampling.upsample(low, 0, shape, 4, expected, 0);
                for (int j = 0; j < d; j++) {
                    assertThat(clean[i * d + j]).isCloseTo(expected[j], within(1e-6f));
                    double diff = noised[i * d + j] - expected[j];
                    sumSquares += diff * diff;
                }
            }
            assertThat(Math.sqrt(sumSquares / (16.0 * d))).isCloseTo(0.5, within(0.05));
            for (int j = 0; j < 4 * d; j++) {
                assertThat(inQuarters[j]).isEqualTo(noised[4 * d + j]);
            }
        }
    }
}
