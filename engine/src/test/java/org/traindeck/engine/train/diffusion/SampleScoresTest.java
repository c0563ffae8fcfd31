package org.traindeck.engine.train.diffusion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.DiffusionSampling;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.FloatSamples;
import org.traindeck.engine.data.InputArray;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.data.ViewProjection;

/**
 * Validation's scores of generated samples against values worked out by hand: PSNR with the true samples' range as
 * the peak; a 2×2×2 volume's means along each axis; a 4×4 view pooled by 2; the projection error of two views, each
 * weighing the same; and views that do not fit their volume, refused at their config path.
 */
class SampleScoresTest {

    /** v[z][y][x] = 4z + 2y + x, one channel. */
    private static final float[] VOLUME = {0, 1, 2, 3, 4, 5, 6, 7};

    private static final SampleShape.Volume CUBE = new SampleShape.Volume(1, 2, 2, 2);

    private static final float[] FRONT = {
        3, 3, 4, 4,
        3, 3, 4, 4,
        5, 5, 6, 6,
        5, 5, 6, 6
    };

    private static final float[] SIDE = {0.5f, 2.5f, 4.5f, 6f};

    private static DiffusionConfig config(Map<String, String> projections) {
        return new DiffusionConfig(
                10, "linear", "epsilon", "none", new DiffusionSampling(1, 5, 1, "ddim"), projections);
    }

    private static List<InputArray> inputs(SampleShape.Image front, float[] frontValues) {
        return List.of(
                new InputArray(DiffusionConfig.NOISY, new FloatSamples(VOLUME, 8), CUBE, 0),
                new InputArray(DiffusionConfig.TIMESTEP, new FloatSamples(new float[1], 1), new SampleShape.Flat(1), 0),
                new InputArray("front", new FloatSamples(frontValues, front.values()), front, 0),
                new InputArray("side", new FloatSamples(SIDE, 4), new SampleShape.Image(1, 2, 2), 0));
    }

    private static Map<String, String> frontAndSide() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("front", "depth");
        p.put("side", "width");
        return p;
    }

    @Test
    void psnrTakesThePeakFromTheTrueSamples() {
        float[] truth = {0, 1, 0.5f, 0.25f};
        float[] generated = {0.1f, 0.9f, 0.5f, 0.25f};
        // squared errors 0.01 + 0.01 over 4 values: MSE 0.005, range 1: 10·log10(1 / 0.005)
        assertThat(SampleScores.psnr(generated, truth, 0, 4)).isCloseTo(23.0103, within(1e-3));
        float[] wide = {0, 4, 2, 1};
        float[] off = {0.4f, 3.6f, 2, 1};
        // range 4, MSE 0.08: 10·log10(16 / 0.08)
        assertThat(SampleScores.psnr(off, wide, 0, 4)).isCloseTo(23.0103, within(1e-3));
        // a perfect sample: range 0.25, the MSE held at 1e-12
        assertThat(SampleScores.psnr(generated, truth, 2, 4)).isCloseTo(107.9588, within(1e-3));
    }

    @Test
    void aVolumeProjectsToItsMeanAlongEachAxis() {
        SampleShape.Image plane = new SampleShape.Image(1, 2, 2);
        List<InputArray> in = List.of(
                new InputArray(DiffusionConfig.NOISY, new FloatSamples(VOLUME, 8), CUBE, 0),
                new InputArray("d", new FloatSamples(new float[4], 4), plane, 0),
                new InputArray("h", new FloatSamples(new float[4], 4), plane, 0),
                new InputArray("w", new FloatSamples(new float[4], 4), plane, 0));
        Map<String, String> all = new LinkedHashMap<>();
        all.put("d", "depth");
        all.put("h", "height");
        all.put("w", "width");
        List<ViewProjection> p = ViewProjection.of(config(all), in, CUBE, "data.train");

        assertThat(p.get(0).project(VOLUME, 0)).containsExactly(2, 3, 4, 5);
        assertThat(p.get(1).project(VOLUME, 0)).containsExactly(1, 2, 5, 6);
        assertThat(p.get(2).project(VOLUME, 0)).containsExactly(0.5f, 2.5f, 4.5f, 6.5f);
    }

    @Test
    void aViewTwiceTheSizeIsAveragePooled() {
        float[] view = new float[16];
        for (int i = 0; i < 16; i++) {
            view[i] = i;
        }
        ViewProjection front = ViewProjection.of(
                        config(Map.of("front", "depth")),
                        inputs(new SampleShape.Image(1, 4, 4), view),
                        CUBE,
                        "data.train")
                .get(0);

        assertThat(front.factor()).isEqualTo(2);
        // (0 + 1 + 4 + 5) / 4, (2 + 3 + 6 + 7) / 4, (8 + 9 + 12 + 13) / 4, (10 + 11 + 14 + 15) / 4
        assertThat(front.pool(view, 0)).containsExactly(2.5f, 4.5f, 10.5f, 12.5f);
    }

    @Test
    void theProjectionErrorIsTheMeanOverTheViews() {
        List<InputArray> in = inputs(new SampleShape.Image(1, 4, 4), FRONT);
        DiffusionConfig c = config(frontAndSide());
        Dataset data = Dataset.diffusion(in, in.get(0).samples(), 1, c);
        List<ViewProjection> p = ViewProjection.of(c, in, CUBE, "data.train");

        // front: pooled [3, 4, 5, 6] against the mean along depth [2, 3, 4, 5], 1 everywhere;
        // side: [0.5, 2.5, 4.5, 6] against the mean along width [0.5, 2.5, 4.5, 6.5], 0.5 at one of four
        assertThat(SampleScores.projectionError(p, data, VOLUME, 1)).isCloseTo((1 + 0.125) / 2, within(1e-6));
    }

    @Test
    void aViewThatDoesNotFitItsVolumeIsRefusedAtItsPath() {
        assertThatThrownBy(() -> ViewProjection.of(
                        config(Map.of("front", "depth")),
                        inputs(new SampleShape.Image(1, 3, 3), new float[9]),
                        CUBE,
                        "data.train"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("data.train.diffusion.projections.front")
                .hasMessageContaining("\"front\" is 3×3×1")
                .hasMessageContaining("mean along its depth is 2×2×1");
        assertThatThrownBy(() -> ViewProjection.of(
                        config(Map.of("front", "depth")),
                        inputs(new SampleShape.Image(3, 2, 2), new float[12]),
                        CUBE,
                        "data.train"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("the same channels");
        assertThatThrownBy(() -> ViewProjection.of(
                        config(Map.of("front", "depth")),
                        inputs(new SampleShape.Image(1, 2, 2), new float[4]),
                        new SampleShape.Image(1, 2, 2),
                        "data.train"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("projections apply to volumes");
    }
}
