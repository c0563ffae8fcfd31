package org.traindeck.engine.parallel;

import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The communication of a synchronous data-parallel step, as a reduce and a broadcast: the replicas' gradients are
 * summed into the master's, in replica order (so that a run is reproducible bit for bit), the master takes the one
 * optimizer step, and its parameters are copied to the replicas that hold their own. Together that is an all-reduce
 * whose optimizer step runs once instead of on every device: one optimizer state (what checkpoints and the
 * fallback tiers use as it is), and no chance for replicas to drift apart through device-specific rounding.
 * <p>
 * ND4J moves arrays between devices itself: directly (peer-to-peer) when cross-device access is allowed, through host
 * memory otherwise; the tier sets which. On the CPU the replicas share the master's parameters and the broadcast has
 * nothing to copy.
 */
public final class GradientExchange {

    private GradientExchange() {}

    /** {@code target += sources[0] + sources[1] + ...}, in that order. */
    public static void reduceInto(INDArray target, List<INDArray> sources) {
        for (INDArray s : sources) {
            target.addi(s);
        }
    }

    /**
     * Part {@code part} of {@code parts} equal runs of {@link #reduceInto}: each value's sum is its own, so the parts,
     * one per thread at once, give the very sum one call does. For replicas that share memory (CPU workers).
     */
    public static void reduceInto(INDArray target, List<INDArray> sources, int part, int parts) {
        long n = target.length();
        long from = n * part / parts;
        long to = n * (part + 1) / parts;
        if (from >= to || sources.isEmpty()) {
            return;
        }
        INDArray mine = target.reshape(n).get(NDArrayIndex.interval(from, to));
        for (INDArray s : sources) {
            mine.addi(s.reshape(n).get(NDArrayIndex.interval(from, to)));
        }
    }

    /** Copies the master's parameters into one replica's (called on the replica's own thread, on its device). */
    public static void copyParameters(INDArray master, INDArray replica) {
        if (master != replica) {
            replica.assign(master);
        }
    }
}
