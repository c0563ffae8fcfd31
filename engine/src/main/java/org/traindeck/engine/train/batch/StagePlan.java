package org.traindeck.engine.train.batch;

import java.util.Locale;
import org.nd4j.linalg.api.buffer.DataType;
import org.traindeck.engine.config.ParallelConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.parallel.Tier;
import org.traindeck.engine.schedule.LrSchedule;

/**
 * A stage as it is being trained on the current tier: its data and batches, how many per-device batches one step
 * takes, the steps per epoch and the learning-rate schedule. Re-planned when the tier changes, from the stage's
 * progress, so that the learning rate follows how far through the stage the run is, whatever the number of devices.
 * <p>
 * A synchronous step takes devices × accumulationSteps batches (the global batch), and keeps that global batch when
 * it falls back to one device (which then accumulates them all), so the run stays the same training. A
 * ParallelWrapper round takes one batch per device, and its one-device fallback goes back to the stage's own
 * accumulation.
 */
public final class StagePlan {

    public final int index;
    public final StageConfig stage;
    public final DataLoader.Loaded data;
    public final BatchMaker batches;
    public final int batchesPerEpoch;
    public final DataType dataType;
    public final boolean images;
    public Tier tier;
    public String devices = "";
    public int workers;
    int devicesInGlobalBatch;
    public int batchesPerStep;
    public int stepsPerEpoch;
    double lrFactor;
    public LrSchedule schedule;
    public long stageStart;

    StagePlan(
            int index,
            StageConfig stage,
            DataLoader.Loaded data,
            BatchMaker batches,
            DataType dataType,
            boolean images) {
        this.index = index;
        this.stage = stage;
        this.data = data;
        this.batches = batches;
        this.batchesPerEpoch = batches.batchesPerEpoch(stage.batchSize());
        this.dataType = dataType;
        this.images = images;
    }

    /** Plans the stage for {@code newTier} on {@code deviceCount} devices, the run being at (epoch, cursor) at {@code globalStep}. */
    public void plan(Tier newTier, int deviceCount, ParallelConfig parallel, int atEpoch, int cursor, long globalStep) {
        tier = newTier;
        workers = newTier.parallel() ? deviceCount : 1;
        devicesInGlobalBatch = parallel.synchronous() || newTier.parallel() ? deviceCount : 1;
        batchesPerStep = newTier.synchronous() ? devicesInGlobalBatch * stage.accumulationSteps() : workers;
        stepsPerEpoch = (batchesPerEpoch + batchesPerStep - 1) / batchesPerStep;
        lrFactor = parallel.lrFactor(devicesInGlobalBatch);
        LrSchedule base = LrSchedule.forStage(stage, stepsPerEpoch);
        schedule = new LrSchedule(
                base.kind(),
                base.baseLr() * lrFactor,
                base.totalSteps(),
                base.warmupSteps(),
                base.stepEvery(),
                base.gamma(),
                base.minLr() * lrFactor);
        stageStart = globalStep - ((long) atEpoch * stepsPerEpoch + (cursor + batchesPerStep - 1) / batchesPerStep);
    }

    /** The learning rate of the step after {@code globalStep}. */
    public double lrAfter(long globalStep) {
        return schedule.lrAt(globalStep - stageStart);
    }

    /** "synchronous all-reduce through host memory on cpu0, cpu1". */
    public String describeTier() {
        return tier.description + " on " + devices;
    }

    public int globalBatch() {
        return stage.batchSize() * batchesPerStep;
    }

    /** "batch 32 per device × 2 devices × 2 accumulated = global batch 128", or "batch 64". */
    public String describeBatch() {
        int k = tier.synchronous() ? stage.accumulationSteps() : 1;
        if (devicesInGlobalBatch == 1 && k == 1) {
            return "batch " + stage.batchSize();
        }
        StringBuilder b = new StringBuilder("batch " + stage.batchSize());
        if (devicesInGlobalBatch > 1) {
            b.append(" per device × ").append(devicesInGlobalBatch).append(" devices");
            if (workers == 1) {
                b.append(" (all on one device)");
            }
        }
        if (k > 1) {
            b.append(" × ").append(k).append(" accumulated");
        }
        return b.append(" = global batch ").append(globalBatch()).toString();
    }

    public String describeLrScaling(ParallelConfig parallel) {
        return devicesInGlobalBatch > 1 && !"none".equals(parallel.lrScaling())
                ? String.format(Locale.ROOT, " (scaled ×%.3g, %s rule)", lrFactor, parallel.lrScaling())
                : "";
    }
}
