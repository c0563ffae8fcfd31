package org.traindeck.engine.train.batch;

import java.nio.file.Path;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.parallel.ShardData;

/**
 * An executor's own copy of a stage's training data, loaded from the same paths and the same config as the driver's,
 * so that batch i of an epoch holds the same samples and augmentation draws on every machine. The config it gets
 * names no validation source ({@code ClusterSessions.shardData}): validation runs on the driver alone.
 */
public final class ShardBatches {

    private final String configJson;
    private final RunConfig config;
    private final StageSetup setup;
    private final StagePlan plan;
    private final boolean shuffle;
    private int epoch = -1;
    private int[] order;

    public ShardBatches(ShardData data) {
        // the paths are absolute: the folder the config is read against plays no part
        this(
                data,
                ConfigParser.parse(data.configJson(), Path.of("").toAbsolutePath())
                        .orThrow(),
                null);
    }

    /** @param setup the previous stage's, whose loaded data a stage with the same data config reuses; null: a new one */
    private ShardBatches(ShardData data, RunConfig config, StageSetup setup) {
        this.configJson = data.configJson();
        this.config = config;
        // the data stays loaded for the session (memory-mapped NumPy files included): executors end with it
        // the driver's own way to a stage's batches; no events: an executor reports through its results only
        this.setup = setup != null ? setup : new StageSetup(config, null);
        this.plan = this.setup.plan(data.stage());
        this.shuffle = config.dataFor(plan.stage).shuffle();
        int samples = plan.data.train().size();
        if (samples != data.trainSamples()) {
            throw new IllegalStateException("loaded " + samples + " training samples from the data files, the driver "
                    + data.trainSamples() + ": the files differ between the machines");
        }
    }

    /** Stage {@code data.stage()}'s batches: its data is loaded only when its data config differs from those loaded. */
    public ShardBatches forStage(ShardData data) {
        return new ShardBatches(data, config, configJson.equals(data.configJson()) ? setup : null);
    }

    public BatchMaker.Batch batch(int epoch, int index, int batchSize) {
        if (epoch != this.epoch) {
            // the order the driver's Trainer draws for the epoch
            order = BatchMaker.epochOrder(plan.data.train().size(), shuffle, config.seed(), plan.index, epoch);
            this.epoch = epoch;
        }
        return plan.batches.batch(order, index, batchSize, config.seed(), plan.index, epoch, true);
    }
}
