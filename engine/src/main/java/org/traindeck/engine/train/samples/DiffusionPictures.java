package org.traindeck.engine.train.samples;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.events.SamplesEvent;
import org.traindeck.engine.outputs.MaskImages;
import org.traindeck.engine.train.diffusion.SampleScores;
import org.traindeck.engine.train.diffusion.ValidationSampler;

/**
 * The sample predictions of a diffusion model: the samples validation generated ({@link ValidationSampler}), not
 * sampled again, each next to its true sample (an image, or a volume's three middle slices) with its PSNR. Both are
 * drawn on the true sample's scale ([0, 1], or its range), so that a too bright or too dark sample shows as such.
 */
public final class DiffusionPictures {

    private DiffusionPictures() {}

    /** The first {@code count} of the generated samples (fewer when fewer were generated). */
    public static List<SamplesEvent.Sample> of(ValidationSampler.Generated g, SampleShape shape, int count) {
        int d = shape.values();
        List<SamplesEvent.Sample> out = new ArrayList<>();
        for (int i = 0; i < Math.min(count, g.count()); i++) {
            float[] truth = new float[d];
            System.arraycopy(g.truth(), i * d, truth, 0, d);
            float[] scale = scaleOf(truth);
            float[] generated = onScale(g.samples(), i * d, d, scale);
            truth = onScale(truth, 0, d, scale);
            List<SamplesEvent.Picture> pictures = new ArrayList<>();
            if (shape instanceof SampleShape.Image im) {
                pictures.add(image("generated", generated, im));
                pictures.add(image("truth", truth, im));
            } else if (shape instanceof SampleShape.Volume v) {
                for (VolumeSlices.Axis axis : VolumeSlices.Axis.values()) {
                    String name = SamplePredictor.name(axis);
                    pictures.add(SamplePredictor.slice("generated-" + name, generated, 0, v, axis));
                    pictures.add(SamplePredictor.slice("truth-" + name, truth, 0, v, axis));
                }
            }
            String psnr = String.format(
                    Locale.ROOT, "PSNR %.2f dB", SampleScores.psnr(g.samples(), g.truth(), i * d, (i + 1) * d));
            out.add(new SamplesEvent.Sample(i, null, psnr, null, null, null, pictures));
        }
        return out;
    }

    /** The lowest and highest value drawn: [0, 1] for a sample within it, else the sample's own range. */
    private static float[] scaleOf(float[] truth) {
        float min = Float.POSITIVE_INFINITY;
        float max = Float.NEGATIVE_INFINITY;
        for (float v : truth) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        return min >= 0 && max <= 1 ? new float[] {0, 1} : new float[] {min, Math.max(max, min + 1e-6f)};
    }

    /** {@code d} values from {@code offset} mapped onto [0, 1] by the scale, clipped there. */
    private static float[] onScale(float[] values, int offset, int d, float[] scale) {
        float[] out = new float[d];
        for (int j = 0; j < d; j++) {
            out[j] = Math.max(0f, Math.min(1f, (values[offset + j] - scale[0]) / (scale[1] - scale[0])));
        }
        return out;
    }

    private static SamplesEvent.Picture image(String label, float[] values, SampleShape.Image im) {
        return SamplePredictor.picture(label, MaskImages.picture(values, 0, im.channels(), im.height(), im.width()));
    }
}
