package org.traindeck.bench;

import java.util.Locale;

/** Turns samples/s into steps/s and GFLOP/s against the peak of the threads a row uses. */
record StepRate(int batch, double stepFlops, MachinePeak peak) {
    String of(double[] samples, int threads) {
        double steps = Stats.of(samples).median() / batch;
        double gflops = steps * stepFlops / 1e9;
        return String.format(
                Locale.ROOT,
                " = %.2f steps/s, %.1f GFLOP/s (%.0f %% of a %.0f GFLOP/s peak est.)",
                steps,
                gflops,
                100 * gflops / peak.gflops(threads),
                peak.gflops(threads));
    }
}
