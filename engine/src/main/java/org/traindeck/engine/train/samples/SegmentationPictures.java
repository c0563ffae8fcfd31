package org.traindeck.engine.train.samples;

import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.events.SamplesEvent;
import org.traindeck.engine.outputs.MaskImages;

/**
 * A segmentation example as the predict command draws masks ({@link MaskImages}): its image, the image with the true
 * mask over it and with the predicted one; a volume as those three for each of its middle slices. The words say the
 * example's pixel accuracy and IoU per class present.
 */
public final class SegmentationPictures implements MaskPictures {

    /** How strongly a class colour tints the image under it. */
    static final double OPACITY = 0.45;

    @Override
    public SamplesEvent.Sample segmentation(SampleSet set, int i, float[] x, float[] y) {
        Dataset data = set.data();
        int classes = data.outputCount();
        int positions = data.targetLength();
        int[] truth = new int[positions];
        float[] t = new float[positions];
        data.copyTargets(i, t, 0);
        for (int p = 0; p < positions; p++) {
            truth[p] = (int) t[p];
        }
        int[] predicted = argmax(y, i * classes * positions, classes, positions);
        List<SamplesEvent.Picture> pictures = new ArrayList<>();
        int d = data.featureCount();
        if (data.shape() instanceof SampleShape.Image im) {
            BufferedImage picture = MaskImages.picture(x, i * d, im.channels(), im.height(), im.width());
            addThree(pictures, "", picture, truth, predicted);
        } else if (data.shape() instanceof SampleShape.Volume v) {
            for (VolumeSlices.Axis axis : VolumeSlices.Axis.values()) {
                VolumeSlices.Plane plane =
                        VolumeSlices.middle(x, i * d, v.channels(), v.depth(), v.height(), v.width(), axis);
                BufferedImage picture =
                        MaskImages.picture(plane.values(), 0, plane.channels(), plane.rows(), plane.columns());
                addThree(
                        pictures,
                        SamplePredictor.name(axis) + "-",
                        picture,
                        slice(truth, v, axis),
                        slice(predicted, v, axis));
            }
        }
        return new SamplesEvent.Sample(
                set.indices()[i], null, agreement(truth, predicted, classes, data), null, null, null, pictures);
    }

    private static void addThree(
            List<SamplesEvent.Picture> pictures, String prefix, BufferedImage picture, int[] truth, int[] predicted) {
        pictures.add(SamplePredictor.picture(prefix + "input", picture));
        pictures.add(SamplePredictor.picture(prefix + "true", MaskImages.overlay(picture, truth, OPACITY)));
        pictures.add(SamplePredictor.picture(prefix + "predicted", MaskImages.overlay(picture, predicted, OPACITY)));
    }

    private static int[] slice(int[] ids, SampleShape.Volume v, VolumeSlices.Axis axis) {
        float[] asFloats = new float[ids.length];
        for (int p = 0; p < ids.length; p++) {
            asFloats[p] = ids[p];
        }
        float[] plane = VolumeSlices.middle(asFloats, 0, 1, v.depth(), v.height(), v.width(), axis)
                .values();
        int[] out = new int[plane.length];
        for (int p = 0; p < plane.length; p++) {
            out[p] = (int) plane[p];
        }
        return out;
    }

    /** The most probable class at each position of a (classes, positions) block at {@code offset}. */
    static int[] argmax(float[] y, int offset, int classes, int positions) {
        int[] out = new int[positions];
        for (int p = 0; p < positions; p++) {
            int best = 0;
            for (int c = 1; c < classes; c++) {
                if (y[offset + c * positions + p] > y[offset + best * positions + p]) {
                    best = c;
                }
            }
            out[p] = best;
        }
        return out;
    }

    /** "pixel accuracy 93.8 %, IoU 1 (cell) 0.81, 2 0.64": the classes in the true or the predicted mask. */
    static String agreement(int[] truth, int[] predicted, int classes, Dataset data) {
        long right = 0;
        long[] both = new long[classes];
        long[] either = new long[classes];
        for (int p = 0; p < truth.length; p++) {
            right += truth[p] == predicted[p] ? 1 : 0;
            if (truth[p] == predicted[p]) {
                both[truth[p]]++;
                either[truth[p]]++;
            } else {
                either[truth[p]]++;
                either[predicted[p]]++;
            }
        }
        StringBuilder b = new StringBuilder(
                String.format(Locale.ROOT, "pixel accuracy %.1f %%", 100.0 * right / Math.max(1, truth.length)));
        for (int c = 1; c < classes; c++) {
            if (either[c] > 0) {
                b.append(String.format(
                        Locale.ROOT,
                        ", IoU %s %.2f",
                        SamplePredictor.className(data, c),
                        (double) both[c] / either[c]));
            }
        }
        return b.toString();
    }
}
