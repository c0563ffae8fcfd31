package org.traindeck.engine.train.diffusion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.DiffusionConfig;

/**
 * The samplers with a perfect denoiser of a one-sample distribution (the noise, velocity or clean sample that
 * x_t really holds): DDIM and DDPM both end at that sample, for every prediction and schedule, and with fewer steps
 * than the schedule has.
 */
class DiffusionSamplerTest {

    private static final float[] TRUTH = {0.5f, -0.25f, 0.75f, 0f};

    private static DiffusionSampler.Denoiser oracle(DiffusionConfig c) {
        NoiseSchedule schedule = NoiseSchedule.of(c);
        Prediction p = Prediction.of(c.prediction());
        return inputs -> {
            float[] xt = inputs[0].dup('c').data().asFloat();
            float[] t = inputs[1].dup('c').data().asFloat();
            int d = TRUTH.length;
            float[] out = new float[xt.length];
            for (int i = 0; i < xt.length; i++) {
                double a = schedule.alphaBar((int) t[i / d]);
                double x0 = TRUTH[i % d];
                double eps = (xt[i] - Math.sqrt(a) * x0) / Math.sqrt(1 - a);
                out[i] = (float) p.target(x0, eps, a);
            }
            return Nd4j.create(out, inputs[0].shape(), DataType.FLOAT);
        };
    }

    @Test
    void bothSamplersEndAtTheSampleAPerfectDenoiserKnows() {
        for (String schedule : new String[] {"linear", "cosine"}) {
            for (String prediction : new String[] {"epsilon", "v", "x0"}) {
                DiffusionConfig c = new DiffusionConfig(1000, schedule, prediction, "none");
                DiffusionSampler sampler = new DiffusionSampler(c);
                for (boolean ddim : new boolean[] {true, false}) {
                    float[] x = sampler.sample(oracle(c), new long[] {3, 4}, new INDArray[0], 50, ddim, 7, 0);
                    for (int i = 0; i < x.length; i++) {
                        assertThat((double) x[i])
                                .as("%s, %s, %s", schedule, prediction, ddim ? "ddim" : "ddpm")
                                .isCloseTo(TRUTH[i % 4], within(1e-3));
                    }
                }
            }
        }
    }

    /**
     * One imperfect denoiser (its clean-sample estimate 0.4·tanh(x_t) + 0.1·t/T, never clipped) as a network of each
     * prediction would output it, by the formulas (ε̂ = (x_t − √ᾱ·x̂0)/√(1−ᾱ), v̂ = √ᾱ·ε̂ − √(1−ᾱ)·x̂0): the sampler
     * must take the same steps whichever form it reads.
     */
    private static DiffusionSampler.Denoiser rough(DiffusionConfig c) {
        NoiseSchedule schedule = NoiseSchedule.of(c);
        String prediction = c.prediction();
        return inputs -> {
            float[] xt = inputs[0].dup('c').data().asFloat();
            float[] t = inputs[1].dup('c').data().asFloat();
            int d = xt.length / t.length;
            float[] out = new float[xt.length];
            for (int i = 0; i < xt.length; i++) {
                double a = schedule.alphaBar((int) t[i / d]);
                double x0 = 0.4 * Math.tanh(xt[i]) + 0.1 * t[i / d] / schedule.timesteps();
                double eps = (xt[i] - Math.sqrt(a) * x0) / Math.sqrt(1 - a);
                out[i] = (float)
                        switch (prediction) {
                            case "epsilon" -> eps;
                            case "v" -> Math.sqrt(a) * eps - Math.sqrt(1 - a) * x0;
                            default -> x0;
                        };
            }
            return Nd4j.create(out, inputs[0].shape(), DataType.FLOAT);
        };
    }

    @Test
    void theSameDenoiserSamplesTheSameInEveryPrediction() {
        for (boolean ddim : new boolean[] {true, false}) {
            float[] reference = null;
            for (String prediction : new String[] {"x0", "epsilon", "v"}) {
                DiffusionConfig c = new DiffusionConfig(1000, "cosine", prediction, "none");
                float[] x =
                        new DiffusionSampler(c).sample(rough(c), new long[] {2, 8}, new INDArray[0], 25, ddim, 11, 0);
                if (reference == null) {
                    reference = x;
                    continue;
                }
                for (int j = 0; j < x.length; j++) {
                    // ε read back from float32 at t = 999 (√ᾱ ≈ 5e-5) carries ~1e-7 of x_t into x̂0
                    assertThat(x[j])
                            .as("%s, %s, value %d", prediction, ddim ? "ddim" : "ddpm", j)
                            .isCloseTo(reference[j], within(2e-3f));
                }
            }
        }
    }

    @Test
    void theStepsAreSpreadOverTheScheduleDownToZero() {
        DiffusionSampler sampler = new DiffusionSampler(new DiffusionConfig(1000, "linear", "epsilon", "none"));
        int[] ts = sampler.timesteps(4);
        assertThat(ts).containsExactly(999, 666, 333, 0);
        assertThat(sampler.timesteps(5000)).hasSize(1000);
    }

    @Test
    void aSampleDoesNotDependOnItsBatch() {
        DiffusionConfig c = new DiffusionConfig(100, "cosine", "v", "none");
        DiffusionSampler sampler = new DiffusionSampler(c);
        DiffusionSampler.Denoiser rough = inputs -> inputs[0].mul(0.3);
        float[] all = sampler.sample(rough, new long[] {4, 4}, new INDArray[0], 10, false, 3, 0);
        float[] last = sampler.sample(rough, new long[] {1, 4}, new INDArray[0], 10, false, 3, 3);
        for (int j = 0; j < 4; j++) {
            assertThat(last[j]).isEqualTo(all[12 + j]);
        }
    }
}
