package org.traindeck.engine.data;

import java.util.Arrays;

/**
 * A cascade's low-resolution view of an image or volume (channels first): average pooling by a factor over each
 * spatial axis, and nearest-neighbour upsampling back to the full size. Training derives it from the true sample,
 * {@code predict} upsamples the stage below's samples the same way.
 */
public final class Downsampling {

    private Downsampling() {}

    /** The spatial sizes of an image (height, width) or a volume (depth, height, width); null for other shapes. */
    public static int[] spatial(SampleShape shape) {
        if (shape instanceof SampleShape.Image i) {
            return new int[] {i.height(), i.width()};
        }
        if (shape instanceof SampleShape.Volume v) {
            return new int[] {v.depth(), v.height(), v.width()};
        }
        return null;
    }

    /** Why {@code factor} cannot pool {@code shape} (not an image or volume, or not dividing a side), or null. */
    public static String misfit(SampleShape shape, int factor) {
        int[] sides = spatial(shape);
        if (sides == null) {
            return "derives from images [N, H, W, C] or volumes [N, D, H, W, C], but the targets are " + shape;
        }
        for (int side : sides) {
            if (side % factor != 0) {
                return "the factor " + factor + " does not divide the targets' size " + shape
                        + ": every spatial side must be a multiple of it";
            }
        }
        return null;
    }

    /** The shape pooled by {@code factor}; call only when {@link #misfit} is null. */
    public static SampleShape pooled(SampleShape shape, int factor) {
        if (shape instanceof SampleShape.Image i) {
            return new SampleShape.Image(i.channels(), i.height() / factor, i.width() / factor);
        }
        SampleShape.Volume v = (SampleShape.Volume) shape;
        return new SampleShape.Volume(v.channels(), v.depth() / factor, v.height() / factor, v.width() / factor);
    }

    /** Average-pools one sample of {@code shape} (channels first) by {@code factor} into {@code out} at {@code at}. */
    public static void pool(float[] sample, SampleShape shape, int factor, float[] out, int at) {
        int[] sides = spatial(shape);
        int channels = channels(shape);
        int[] low = lowSides(sides, factor);
        int lowCount = count(low);
        int highCount = count(sides);
        float[] sums = new float[lowCount];
        for (int c = 0; c < channels; c++) {
            Arrays.fill(sums, 0);
            for (int p = 0; p < highCount; p++) {
                sums[lowIndex(p, sides, low, factor)] += sample[c * highCount + p];
            }
            double cell = Math.pow(factor, sides.length);
            for (int q = 0; q < lowCount; q++) {
                out[at + c * lowCount + q] = (float) (sums[q] / cell);
            }
        }
    }

    /** Nearest-neighbour upsampling of one pooled sample back to {@code shape}, into {@code out} at {@code at}. */
    public static void upsample(float[] low, int from, SampleShape shape, int factor, float[] out, int at) {
        int[] sides = spatial(shape);
        int channels = channels(shape);
        int[] lowSides = lowSides(sides, factor);
        int lowCount = count(lowSides);
        int highCount = count(sides);
        for (int c = 0; c < channels; c++) {
            for (int p = 0; p < highCount; p++) {
                out[at + c * highCount + p] = low[from + c * lowCount + lowIndex(p, sides, lowSides, factor)];
            }
        }
    }

    private static int channels(SampleShape shape) {
        return shape instanceof SampleShape.Image i ? i.channels() : ((SampleShape.Volume) shape).channels();
    }

    private static int[] lowSides(int[] sides, int factor) {
        int[] low = new int[sides.length];
        for (int k = 0; k < sides.length; k++) {
            low[k] = sides[k] / factor;
        }
        return low;
    }

    private static int count(int[] sides) {
        int n = 1;
        for (int s : sides) {
            n *= s;
        }
        return n;
    }

    /** The pooled position a full-size position {@code p} (row-major over the spatial axes) falls in. */
    private static int lowIndex(int p, int[] sides, int[] low, int factor) {
        int index = 0;
        int rest = p;
        int lowStride = 1;
        for (int k = sides.length - 1; k >= 0; k--) {
            int coordinate = rest % sides[k];
            rest /= sides[k];
            index += coordinate / factor * lowStride;
            lowStride *= low[k];
        }
        return index;
    }
}
