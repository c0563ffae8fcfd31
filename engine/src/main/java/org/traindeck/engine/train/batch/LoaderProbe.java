package org.traindeck.engine.train.batch;

import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.model.ModelCompiler;

/**
 * How fast a config's first stage's training batches are prepared, without training: the same code the loader
 * thread runs (reading, shuffling, augmenting, one-hot targets, the ND4J arrays). For {@code traindeck bench}.
 */
public final class LoaderProbe {

    private LoaderProbe() {}

    /** Samples per second over {@code batches} batches, made one after another on the calling thread. */
    public static double samplesPerSecond(RunConfig config, int batches) {
        StageConfig stage = config.stages().get(0);
        DataConfig data = config.dataFor(stage);
        try (DataLoader.Loaded loaded = DataLoader.load(config, data, "data")) {
            BatchMaker maker = new BatchMaker(
                    loaded.train(),
                    ModelCompiler.wantsImages(config.model()),
                    stage.augmentation(),
                    StageSetup.dataType(stage),
                    data.train().reconstructionNoise());
            int perEpoch = maker.batchesPerEpoch(stage.batchSize());
            long samples = 0;
            int[] order = null;
            long start = System.nanoTime();
            for (int b = 0; b < batches; b++) {
                int epoch = b / perEpoch;
                if (b % perEpoch == 0) {
                    order = BatchMaker.epochOrder(loaded.train().size(), data.shuffle(), config.seed(), 0, epoch);
                }
                samples += maker.batch(order, b % perEpoch, stage.batchSize(), config.seed(), 0, epoch, true)
                        .size();
            }
            return samples / ((System.nanoTime() - start) / 1e9);
        }
    }
}
