package org.traindeck.engine.train.diffusion;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntToLongFunction;
import org.traindeck.engine.config.DiffusionConfig;

/**
 * Noises a batch of clean samples for a diffusion step: per example a timestep t and Gaussian noise ε, both drawn
 * from that example's own seed (a function of its position, never of the batch), x_t = √ᾱ_t·x0 + √(1−ᾱ_t)·ε in
 * place of x0, t as the timestep input, and the prediction's target. With min-SNR weighting each example's squared
 * error counts min-SNR-γ times (γ = 5), given as a weight per target value (DL4J's label mask multiplies the loss
 * and its gradient value by value, so the weighting is exact).
 */
public final class DiffusionDraws {

    /** γ of min-SNR-γ weighting, as the paper and diffusers' examples use. */
    public static final double MIN_SNR_GAMMA = 5;

    private final NoiseSchedule schedule;
    private final Prediction prediction;
    private final boolean minSnr;

    public DiffusionDraws(DiffusionConfig c) {
        this.schedule = NoiseSchedule.of(c);
        this.prediction = Prediction.of(c.prediction());
        this.minSnr = "minSnr".equals(c.lossWeighting());
    }

    /**
     * @param samples  n clean samples of d values each, replaced by the noised ones
     * @param timestep n values, set to each example's t
     * @param targets  n · d values, set to each example's target
     * @param seeds    each example's seed by its index in the batch
     * @return the loss weight of every target value, or null without weighting
     */
    public float[] noise(float[] samples, float[] timestep, float[] targets, int n, int d, IntToLongFunction seeds) {
        float[] weights = minSnr ? new float[n * d] : null;
        for (int i = 0; i < n; i++) {
            SplittableRandom r = new SplittableRandom(seeds.applyAsLong(i));
            int t = r.nextInt(schedule.timesteps());
            double a = schedule.alphaBar(t);
            double signal = Math.sqrt(a);
            double noise = Math.sqrt(1 - a);
            timestep[i] = t;
            for (int j = i * d; j < (i + 1) * d; j++) {
                double eps = Gaussians.next(r);
                double x0 = samples[j];
                samples[j] = (float) (signal * x0 + noise * eps);
                targets[j] = (float) prediction.target(x0, eps, a);
            }
            if (weights != null) {
                float w = (float) prediction.minSnrWeight(schedule.snr(t), MIN_SNR_GAMMA);
                Arrays.fill(weights, i * d, (i + 1) * d, w);
            }
        }
        return weights;
    }
}
