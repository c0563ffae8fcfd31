package org.traindeck.engine.train.step;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.IntToLongFunction;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.train.batch.BatchMaker;

/**
 * The gradient of one shard of a step (one or more micro-batches) on one model replica: the micro-batches' gradients
 * are summed in the replica's own gradient view, unnormalized (DL4J's backprop gives the sum over examples, the
 * division by the example count comes once, after the shards are summed). Not thread-safe: one per replica.
 */
public final class ShardGradient {

    /** The shard's loss summed over its examples (the mean times the count), and its example count (0: empty). */
    public record Shard(double lossSum, int examples, int microBatches) {
        static final Shard EMPTY = new Shard(0, 0, 0);
    }

    /** One forward and backward pass of a micro-batch into the network's gradient view; returns DL4J's score. */
    public interface Pass {
        Pass DL4J = (net, batch) -> {
            net.setInputs(batch.inputs());
            net.setLabels(batch.labels());
            if (batch.labelMask() == null) {
                net.computeGradientAndScore();
                return net.score();
            }
            net.setLayerMaskArrays(null, new INDArray[] {batch.labelMask()});
            try {
                net.computeGradientAndScore();
                return net.score();
            } finally {
                // DL4J's output() would apply a training batch's mask to whatever it is given next
                net.clearLayerMaskArrays();
            }
        };

        double run(ComputationGraph net, BatchMaker.Batch batch);
    }

    private final ComputationGraph net;
    private final boolean dataLossOnly;
    private final Pass pass;
    private INDArray accumulator;

    /** @param dataLossOnly report the loss without the weight-decay penalty (DL4J's score includes it) */
    public ShardGradient(ComputationGraph net, boolean dataLossOnly) {
        this(net, dataLossOnly, Pass.DL4J);
    }

    /** @param pass how each micro-batch's gradient is computed (the profiler's timed walk, or DL4J's own) */
    public ShardGradient(ComputationGraph net, boolean dataLossOnly, Pass pass) {
        this.net = net;
        this.dataLossOnly = dataLossOnly;
        this.pass = pass;
    }

    /**
     * Computes the shard's gradient into the replica's gradient view.
     *
     * @param seeds the random seed of each micro-batch (dropout), by its index in the shard: a function of the
     *              micro-batch's position in the global batch, so the draws do not depend on which device runs it
     */
    public Shard compute(List<BatchMaker.Batch> microBatches, IntToLongFunction seeds) {
        return compute(microBatches, seeds, j -> {});
    }

    /** @param beforeEach told the index of each micro-batch before it is computed (a synchronized BatchNorm round) */
    public Shard compute(List<BatchMaker.Batch> microBatches, IntToLongFunction seeds, IntConsumer beforeEach) {
        int k = microBatches.size();
        if (k == 0) {
            return Shard.EMPTY;
        }
        int examples = 0;
        double lossSum = 0;
        INDArray flat = null;
        for (int j = 0; j < k; j++) {
            BatchMaker.Batch b = microBatches.get(j);
            beforeEach.accept(j);
            Nd4j.getRandom().setSeed(seeds.applyAsLong(j));
            double score = pass.run(net, b);
            if (dataLossOnly) {
                score -= net.calcRegularizationScore(true);
            }
            lossSum += score * b.size();
            examples += b.size();
            flat = net.getGradientsViewArray();
            if (k > 1) {
                if (accumulator == null
                        || accumulator.length() != flat.length()
                        || accumulator.dataType() != flat.dataType()) {
                    accumulator = flat.dup();
                } else if (j == 0) {
                    accumulator.assign(flat);
                } else {
                    accumulator.addi(flat);
                }
            }
        }
        if (k > 1) {
            flat.assign(accumulator);
        }
        return new Shard(lossSum, examples, k);
    }

    /** Parameters and gradients as they travel between the driver and the executors. */
    public static INDArray read(byte[] bytes) {
        return Nd4j.fromByteArray(bytes);
    }

    public static byte[] write(INDArray array) {
        try {
            return Nd4j.toByteArray(array);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
