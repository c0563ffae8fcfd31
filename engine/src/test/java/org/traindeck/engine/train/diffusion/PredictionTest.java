package org.traindeck.engine.train.diffusion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.traindeck.engine.config.DiffusionConfig;

/**
 * The targets and their conversions back against the formulas, with known numbers: x_t = √ᾱ·x0 + √(1−ᾱ)·ε, v =
 * √ᾱ·ε − √(1−ᾱ)·x0 (Salimans and Ho 2022, eq. 9; diffusers' get_velocity), and the min-SNR-γ weights of Hang et al.
 */
class PredictionTest {

    private static final double X0 = 0.5;
    private static final double EPS = -1.5;

    @Test
    void theVelocityIsTheFormulasAtAKnownNoiseLevel() {
        // ᾱ = 0.64: √ᾱ = 0.8, √(1−ᾱ) = 0.6, so v = 0.8·(−1.5) − 0.6·0.5 = −1.5 and x_t = 0.4 − 0.9 = −0.5
        assertThat(Prediction.V.target(X0, EPS, 0.64)).isCloseTo(-1.5, within(1e-12));
        assertThat(Prediction.EPSILON.target(X0, EPS, 0.64)).isEqualTo(EPS);
        assertThat(Prediction.X0.target(X0, EPS, 0.64)).isEqualTo(X0);
        assertThat(Prediction.V.x0(-1.5, -0.5, 0.64)).isCloseTo(X0, within(1e-12));
    }

    @Test
    void everyTargetConvertsBackToTheCleanSampleAndTheNoiseAtEveryTimestep() {
        for (String schedule : new String[] {"linear", "cosine"}) {
            NoiseSchedule levels = NoiseSchedule.of(new DiffusionConfig(1000, schedule, "v", "none"));
            for (int t : new int[] {0, 1, 250, 500, 750, 998, 999}) {
                double a = levels.alphaBar(t);
                double xt = Math.sqrt(a) * X0 + Math.sqrt(1 - a) * EPS;
                for (Prediction p : Prediction.values()) {
                    double out = p.target(X0, EPS, a);
                    double x0 = p.x0(out, xt, a);
                    double eps = (xt - Math.sqrt(a) * x0) / Math.sqrt(1 - a);
                    // ε from x0 loses digits where √ᾱ·x0 dwarfs √(1−ᾱ) (t = 0), x0 from ε where ᾱ is near 0
                    double tolerance = 1e-9 / Math.min(Math.sqrt(a), Math.sqrt(1 - a));
                    assertThat(x0).as("%s %s t=%d x0", schedule, p, t).isCloseTo(X0, within(tolerance));
                    assertThat(eps).as("%s %s t=%d eps", schedule, p, t).isCloseTo(EPS, within(tolerance));
                }
            }
        }
    }

    @Test
    void theCosineScheduleIsNicholAndDhariwalsWithItsBetasCapped() {
        NoiseSchedule cosine = NoiseSchedule.of(new DiffusionConfig(1000, "cosine", "v", "none"));
        double s = 0.008;
        double f0 = Math.pow(Math.cos(s / (1 + s) * Math.PI / 2), 2);
        for (int t : new int[] {0, 100, 500, 900}) {
            double f = Math.pow(Math.cos(((t + 1) / 1000.0 + s) / (1 + s) * Math.PI / 2), 2);
            // ᾱ_t = f(t + 1) / f(0) while no β reaches the cap
            assertThat(cosine.alphaBar(t)).as("t=%d", t).isCloseTo(f / f0, within(1e-9));
        }
        // the last β is capped at 0.999 (f(T) = 0 would make it 1): ᾱ is tiny but positive
        assertThat(cosine.alphaBar(999)).isPositive().isLessThan(1e-6);
        assertThat(cosine.snr(500)).isCloseTo(cosine.alphaBar(500) / (1 - cosine.alphaBar(500)), within(1e-12));
    }

    @Test
    void minSnrWeightsTheErrorAsTheCleanSamplesErrorWeightedByMinSnr() {
        // an error δ in x0 is an error δ/√(1−ᾱ) in v and δ·√SNR in ε: each weight makes the loss min(SNR, γ)·δ²
        for (double a : new double[] {0.01, 0.5, 0.9, 0.999}) {
            double snr = a / (1 - a);
            double delta = 0.1;
            double vError = delta / Math.sqrt(1 - a);
            double epsError = delta * Math.sqrt(snr);
            double expected = Math.min(snr, 5) * delta * delta;
            assertThat(Prediction.V.minSnrWeight(snr, 5) * vError * vError).isCloseTo(expected, within(1e-12));
            assertThat(Prediction.EPSILON.minSnrWeight(snr, 5) * epsError * epsError)
                    .isCloseTo(expected, within(1e-12));
            assertThat(Prediction.X0.minSnrWeight(snr, 5) * delta * delta).isCloseTo(expected, within(1e-12));
        }
    }
}
