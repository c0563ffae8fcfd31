package org.traindeck.engine.train.diffusion;

import org.traindeck.engine.config.DiffusionConfig;

/**
 * The noise levels of a diffusion task: ᾱ_t, the fraction of the clean sample's variance left at timestep t (0 ≤ t <
 * T), from the betas of the linear schedule (1e-4 to 0.02, DDPM) or of the cosine one (Nichol and Dhariwal, s =
 * 0.008, each β at most 0.999), as diffusers' DDPMScheduler computes them.
 */
public final class NoiseSchedule {

    private static final double BETA_START = 1e-4;
    private static final double BETA_END = 0.02;
    private static final double COSINE_OFFSET = 0.008;
    private static final double MAX_BETA = 0.999;

    private final double[] alphaBar;

    private NoiseSchedule(double[] alphaBar) {
        this.alphaBar = alphaBar;
    }

    public static NoiseSchedule of(DiffusionConfig c) {
        int steps = c.timesteps();
        double[] betas = new double[steps];
        for (int t = 0; t < steps; t++) {
            betas[t] = "cosine".equals(c.schedule())
                    ? Math.min(1 - cosine((t + 1.0) / steps) / cosine((double) t / steps), MAX_BETA)
                    : BETA_START + (BETA_END - BETA_START) * t / Math.max(1, steps - 1);
        }
        double[] alphaBar = new double[steps];
        double product = 1;
        for (int t = 0; t < steps; t++) {
            product *= 1 - betas[t];
            alphaBar[t] = product;
        }
        return new NoiseSchedule(alphaBar);
    }

    private static double cosine(double fraction) {
        double c = Math.cos((fraction + COSINE_OFFSET) / (1 + COSINE_OFFSET) * Math.PI / 2);
        return c * c;
    }

    public int timesteps() {
        return alphaBar.length;
    }

    /** ᾱ_t. */
    public double alphaBar(int t) {
        return alphaBar[t];
    }

    /** The signal-to-noise ratio ᾱ_t / (1 − ᾱ_t). */
    public double snr(int t) {
        return alphaBar[t] / (1 - alphaBar[t]);
    }
}
