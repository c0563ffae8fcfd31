package org.traindeck.engine.train.state;

import org.traindeck.engine.train.health.LayerSnapshot;

/**
 * What one optimizer step did.
 *
 * @param step               the global step number after it (1 for the run's first step)
 * @param batches            per-device-size batches it consumed from the epoch
 * @param loss               the mean loss over its examples
 * @param gradNorm           the gradient's global L2 norm before clipping (NaN when not computed)
 * @param examples           examples in the global batch
 * @param examplesPerDevice  of which each device computed, in device order
 * @param applied            false when the loss or gradient was not finite and the parameters were left as they were
 * @param lr                 the learning rate it used
 * @param exchangeNanos      time spent summing gradients across devices and copying parameters back (0 on one device)
 * @param baselinePerDevice  one device's throughput measured alone in this run, samples/s (NaN when not measured)
 * @param layers             what the step measured inside the model (null on steps that do not look)
 */
public record StepReport(
        long step,
        int batches,
        double loss,
        double gradNorm,
        int examples,
        long[] examplesPerDevice,
        boolean applied,
        double lr,
        long exchangeNanos,
        double baselinePerDevice,
        LayerSnapshot layers) {

    public StepReport(
            long step,
            int batches,
            double loss,
            double gradNorm,
            int examples,
            long[] examplesPerDevice,
            boolean applied,
            double lr,
            long exchangeNanos,
            double baselinePerDevice) {
        this(
                step,
                batches,
                loss,
                gradNorm,
                examples,
                examplesPerDevice,
                applied,
                lr,
                exchangeNanos,
                baselinePerDevice,
                null);
    }

    /** The same step with its loss per position of a per-position head (pixels, voxels, steps). */
    public StepReport perPosition(int positions) {
        return positions == 1
                ? this
                : new StepReport(
                        step,
                        batches,
                        loss / positions,
                        gradNorm,
                        examples,
                        examplesPerDevice,
                        applied,
                        lr,
                        exchangeNanos,
                        baselinePerDevice,
                        layers);
    }
}
