package org.traindeck.engine.train.step;

import java.util.List;
import java.util.function.IntToLongFunction;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.health.LayerProbe;

/**
 * One optimizer step over one or more micro-batches on one device: the shard's gradient ({@link ShardGradient}), then
 * the update ({@link GradientUpdate}), so that gradient accumulation and global-norm clipping really change it.
 */
public final class TrainingStep {

    /**
     * The step's mean loss over its examples, the gradient's L2 norm before clipping, the examples used, and whether
     * the update was applied (it is not when the loss or the gradient is not finite: the parameters stay as they were).
     */
    public record Result(double loss, double gradNorm, int examples, boolean clipped, boolean applied) {}

    private final ShardGradient shard;
    private final GradientUpdate update;

    /** @param dataLossOnly report the loss without the weight-decay penalty (DL4J's score includes it) */
    public TrainingStep(ComputationGraph net, boolean dataLossOnly) {
        this.shard = new ShardGradient(net, dataLossOnly);
        this.update = new GradientUpdate(net);
    }

    public Result step(List<BatchMaker.Batch> microBatches, int iteration, int epoch, double clipNorm) {
        return step(microBatches, iteration, epoch, clipNorm, true, false, j -> j);
    }

    public Result step(
            List<BatchMaker.Batch> microBatches,
            int iteration,
            int epoch,
            double clipNorm,
            boolean wantNorm,
            boolean poison,
            IntToLongFunction seeds) {
        return step(microBatches, iteration, epoch, clipNorm, wantNorm, poison, seeds, null);
    }

    /** @param probe takes per-layer figures of this step (null: none) */
    public Result step(
            List<BatchMaker.Batch> microBatches,
            int iteration,
            int epoch,
            double clipNorm,
            boolean wantNorm,
            boolean poison,
            IntToLongFunction seeds,
            LayerProbe probe) {
        ShardGradient.Shard s = shard.compute(microBatches, seeds);
        GradientUpdate.Result r = update.apply(
                s.lossSum(), s.examples(), s.microBatches(), iteration, epoch, clipNorm, wantNorm, poison, probe);
        return new Result(r.loss(), r.gradNorm(), r.examples(), r.clipped(), r.applied());
    }
}
