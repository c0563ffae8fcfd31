package org.traindeck.engine.events;

import java.util.Arrays;

/**
 * The distribution of one layer's weights or gradients at a step, in the shape of TensorBoard's
 * {@code HistogramProto}: bucket {@code i} counts the values in ({@code bucketLimits[i-1]}, {@code bucketLimits[i]}],
 * the first bucket everything up to {@code bucketLimits[0]}.
 *
 * @param node     the graph node the parameters belong to ({@code "attn1"})
 * @param quantity what was counted: {@link #WEIGHTS} or {@link #GRADIENTS}
 */
public record HistogramEvent(
        String runName,
        String stage,
        int stageIndex,
        int epoch,
        long step,
        long wallTimeMillis,
        double elapsedSeconds,
        String node,
        String quantity,
        double min,
        double max,
        long count,
        double sum,
        double sumSquares,
        double[] bucketLimits,
        double[] bucketCounts)
        implements RunEvent {

    public static final String WEIGHTS = "weights";
    public static final String GRADIENTS = "gradients";

    public HistogramEvent {
        if (bucketLimits.length != bucketCounts.length) {
            throw new IllegalArgumentException("histogram of " + node + " has " + bucketLimits.length
                    + " bucket limits and " + bucketCounts.length + " counts");
        }
        bucketLimits = bucketLimits.clone();
        bucketCounts = bucketCounts.clone();
    }

    @Override
    public double[] bucketLimits() {
        return bucketLimits.clone();
    }

    @Override
    public double[] bucketCounts() {
        return bucketCounts.clone();
    }

    /** The TensorBoard tag: {@code layer/<node>/<quantity>}. */
    public String tag() {
        return LayerMetrics.PREFIX + node + "/" + quantity;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HistogramEvent h
                && h.runName.equals(runName)
                && h.stageIndex == stageIndex
                && h.step == step
                && h.node.equals(node)
                && h.quantity.equals(quantity)
                && h.count == count
                && Double.compare(h.min, min) == 0
                && Double.compare(h.max, max) == 0
                && Arrays.equals(h.bucketLimits, bucketLimits)
                && Arrays.equals(h.bucketCounts, bucketCounts);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * node.hashCode() + quantity.hashCode()) + Long.hashCode(step);
    }

    @Override
    public String toString() {
        return "HistogramEvent[" + tag() + " @" + step + ", n=" + count + ", " + bucketCounts.length + " buckets]";
    }
}
