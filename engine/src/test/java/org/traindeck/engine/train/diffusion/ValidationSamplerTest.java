package org.traindeck.engine.train.diffusion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.DiffusionSampling;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.FloatSamples;
import org.traindeck.engine.data.InputArray;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.events.MetricNames;

/**
 * Validation's samples are a function of the weights and the seed alone: the same seed gives the same samples at
 * every call (so epochs compare) whichever sampler, another seed other ones; the first {@code count} examples are
 * generated, each from its own conditioning; and a stop request ends the sampling between batches.
 */
class ValidationSamplerTest {

    private static final SampleShape.Image SHAPE = new SampleShape.Image(1, 3, 3);
    private static final int N = 10;

    /** A denoiser that predicts x0 as the conditioning value everywhere: its samples are the conditioning's. */
    private static final DiffusionSampler.Denoiser TOWARDS_CODE = inputs -> inputs[2]
            .reshape(inputs[2].size(0), 1, 1, 1)
            .broadcast(inputs[0].shape())
            .mul(1.0);

    private static Dataset data(String sampler, int count) {
        SplittableRandom r = new SplittableRandom(2);
        float[] x = new float[N * SHAPE.values()];
        float[] code = new float[N];
        for (int i = 0; i < N; i++) {
            code[i] = (float) r.nextDouble(-0.8, 0.8);
        }
        for (int j = 0; j < x.length; j++) {
            x[j] = code[j / SHAPE.values()];
        }
        FloatSamples samples = new FloatSamples(x, SHAPE.values());
        List<InputArray> inputs = List.of(
                new InputArray(DiffusionConfig.NOISY, samples, SHAPE, 0),
                new InputArray(DiffusionConfig.TIMESTEP, new FloatSamples(new float[N], 1), new SampleShape.Flat(1), 0),
                new InputArray("code", new FloatSamples(code, 1), new SampleShape.Flat(1), 0));
        DiffusionConfig c =
                new DiffusionConfig(50, "linear", "x0", "none", new DiffusionSampling(1, 8, count, sampler), null);
        return Dataset.diffusion(inputs, samples, 1, c);
    }

    private static ValidationSampler.Generated generate(DiffusionSampler.Denoiser net, Dataset data, long seed) {
        return ValidationSampler.generate(net, data, data.diffusion(), seed, DataType.FLOAT, () -> false);
    }

    @Test
    void theSameSeedGivesTheSameSamplesAndAnotherSeedOthers() {
        // a denoiser that is not perfect, so that the starting noise shows in the samples
        DiffusionSampler.Denoiser halfway =
                inputs -> TOWARDS_CODE.output(inputs).add(inputs[0].mul(0.3));
        for (String sampler : List.of("ddim", "ddpm")) {
            Dataset data = data(sampler, 4);
            ValidationSampler.Generated first = generate(halfway, data, 7);
            ValidationSampler.Generated again = generate(halfway, data, 7);
            ValidationSampler.Generated other = generate(halfway, data, 8);

            assertThat(first.count()).isEqualTo(4);
            assertThat(again.samples()).as(sampler).containsExactly(first.samples());
            assertThat(again.metrics()).isEqualTo(first.metrics());
            assertThat(other.samples()).as(sampler).isNotEqualTo(first.samples());
        }
    }

    @Test
    void theFirstExamplesAreGeneratedFromTheirOwnConditioning() {
        Dataset data = data("ddim", 6);
        ValidationSampler.Generated g = generate(TOWARDS_CODE, data, 1);

        float[] truth = new float[6 * SHAPE.values()];
        for (int i = 0; i < 6; i++) {
            data.copyTargets(i, truth, i * SHAPE.values());
        }
        assertThat(g.truth()).containsExactly(truth);
        // the last step of DDIM lands on the denoiser's x0: the true sample, so the PSNR is the ceiling
        for (int j = 0; j < truth.length; j++) {
            assertThat(g.samples()[j]).isCloseTo(truth[j], within(1e-5f));
        }
        assertThat(g.metrics().get(MetricNames.VAL_PSNR)).isGreaterThan(80);
        assertThat(g.metrics()).doesNotContainKey(MetricNames.VAL_PROJECTION_ERROR);
    }

    @Test
    void aStopRequestEndsTheSampling() {
        Dataset data = data("ddim", 4);
        assertThat(ValidationSampler.generate(TOWARDS_CODE, data, data.diffusion(), 1, DataType.FLOAT, () -> true))
                .isNull();
    }
}
