package org.traindeck.engine.train.diffusion;

/**
 * What a diffusion network outputs, and how its output turns back into the clean sample and the noise: ε, the
 * velocity v = √ᾱ·ε − √(1−ᾱ)·x0 (Salimans and Ho), or x0. Each method works on one value; {@code a} is ᾱ_t.
 */
public enum Prediction {
    EPSILON,
    V,
    X0;

    public static Prediction of(String json) {
        return switch (json) {
            case "v" -> V;
            case "x0" -> X0;
            default -> EPSILON;
        };
    }

    /** The training target for clean value {@code x0} noised with {@code eps}. */
    public double target(double x0, double eps, double a) {
        return switch (this) {
            case EPSILON -> eps;
            case V -> Math.sqrt(a) * eps - Math.sqrt(1 - a) * x0;
            case X0 -> x0;
        };
    }

    /** The clean value the network's output {@code out} implies at noised value {@code xt}. */
    public double x0(double out, double xt, double a) {
        return switch (this) {
            case EPSILON -> (xt - Math.sqrt(1 - a) * out) / Math.sqrt(a);
            case V -> Math.sqrt(a) * xt - Math.sqrt(1 - a) * out;
            case X0 -> out;
        };
    }

    /** The min-SNR-γ weight of an example at signal-to-noise ratio {@code snr} (Hang et al. 2023). */
    public double minSnrWeight(double snr, double gamma) {
        double clipped = Math.min(snr, gamma);
        return switch (this) {
            case EPSILON -> clipped / snr;
            case V -> clipped / (snr + 1);
            case X0 -> clipped;
        };
    }
}
