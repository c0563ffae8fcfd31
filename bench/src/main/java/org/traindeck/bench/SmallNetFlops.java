package org.traindeck.bench;

import java.util.Locale;

/**
 * FLOPs per training example of the small peer networks, counted as {@link TransformerFlops} counts a transformer's:
 * the matrix products and convolutions only (a multiply-add is 2 FLOPs), the backward pass twice the forward.
 */
final class SmallNetFlops {

    private SmallNetFlops() {}

    /** An MLP from {@code inputs} through the hidden widths to {@code outputs}. */
    static double mlp(int inputs, int[] hidden, int outputs) {
        double forward = 0;
        int in = inputs;
        for (int h : hidden) {
            forward += 2.0 * in * h;
            in = h;
        }
        forward += 2.0 * in * outputs;
        return 3 * forward;
    }

    /**
     * TrainDeck's {@code lenet} on 28×28×1 images: two "same" convolutions of {@code kernel}² with 2×2 max pooling after
     * each, a dense layer and the 10-class head.
     */
    static double lenet(int first, int second, int kernel, int dense) {
        double k2 = (double) kernel * kernel;
        double forward = 2.0 * 28 * 28 * first * k2
                + 2.0 * 14 * 14 * second * first * k2
                + 2.0 * 7 * 7 * second * dense
                + 2.0 * dense * 10;
        return 3 * forward;
    }

    /** " = X GFLOP/s (Y % of a P GFLOP/s peak est.)" for the median of {@code samplesPerSecond} on {@code threads}. */
    static String rate(double[] samplesPerSecond, double flopsPerSample, int threads, MachinePeak peak) {
        double gflops = Stats.of(samplesPerSecond).median() * flopsPerSample / 1e9;
        return String.format(
                Locale.ROOT,
                " = %.1f GFLOP/s (%.0f %% of a %.0f GFLOP/s peak est.)",
                gflops,
                100 * gflops / peak.gflops(threads),
                peak.gflops(threads));
    }
}
