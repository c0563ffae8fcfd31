package org.traindeck.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.parallel.ShardResult;
import org.traindeck.engine.parallel.StepSum;

/**
 * The driver's sum of one step's shard results: losses, example and micro-batch counts, and the gradients added in
 * shard order (so a run is reproducible), with the time the step spent outside the slowest shard's computation.
 */
final class StepSums {

    private StepSums() {}

    static StepSum inShardOrder(List<ShardResult> results, long wall) {
        double lossSum = 0;
        int examples = 0;
        int micro = 0;
        long[] perShard = new long[results.size()];
        long[] compute = new long[results.size()];
        long slowest = 0;
        INDArray sum = null;
        for (int i = 0; i < results.size(); i++) {
            ShardResult r = results.get(i);
            lossSum += r.lossSum();
            examples += r.examples();
            micro += r.microBatches();
            perShard[i] = r.examples();
            compute[i] = r.computeNanos();
            slowest = Math.max(slowest, r.computeNanos());
            if (r.gradient() != null) {
                INDArray g = Nd4j.fromByteArray(r.gradient());
                sum = sum == null ? g : sum.addi(g);
            }
        }
        try {
            return new StepSum(
                    lossSum, examples, micro, Nd4j.toByteArray(sum), perShard, compute, Math.max(0, wall - slowest));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
