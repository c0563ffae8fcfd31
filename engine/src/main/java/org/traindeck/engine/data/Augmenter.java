package org.traindeck.engine.data;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.traindeck.engine.config.AugmentationConfig;

/**
 * Random 90° rotations, flips and brightness/contrast changes of channels-first images, applied in place to one
 * sample at a time. Brightness and contrast are relative, so they work on any pixel scale. A segmentation mask is
 * turned and flipped with its image, and never brightened.
 */
public final class Augmenter {

    private final AugmentationConfig config;
    private final SampleShape.Image shape;

    public Augmenter(AugmentationConfig config, SampleShape.Image shape) {
        this.config = config;
        this.shape = shape;
    }

    /** Why {@code augmentation} cannot apply to {@code train}, or null: it turns and flips images (and their masks). */
    public static String misfit(AugmentationConfig augmentation, Dataset train) {
        if (augmentation == null || !augmentation.isActive() || train.isImage()) {
            return null;
        }
        return "applies to images only, but this stage's training data is "
                + (train.shape() instanceof SampleShape.Volume
                        ? "volumes (" + train.shape() + ")"
                        : train.shape().toString());
    }

    /** Augments the image at {@code offset} in {@code data}, drawing from {@code random}. */
    public void apply(float[] data, int offset, SplittableRandom random) {
        apply(data, offset, null, 0, random);
    }

    /** Augments an image and, when {@code mask} is not null, its one-channel mask at {@code maskOffset} the same way. */
    public void apply(float[] data, int offset, float[] mask, int maskOffset, SplittableRandom random) {
        int quarterTurns = config.rotate90() ? random.nextInt(4) : 0;
        boolean flipH = config.flipHorizontal() && random.nextBoolean();
        boolean flipV = config.flipVertical() && random.nextBoolean();
        if (quarterTurns != 0 || flipH || flipV) {
            turn(data, offset, shape.channels(), quarterTurns, flipH, flipV);
            if (mask != null) {
                turn(mask, maskOffset, 1, quarterTurns, flipH, flipV);
            }
        }
        if (config.brightness() > 0 || config.contrast() > 0) {
            float brightness = (float)
                    (1 + (config.brightness() > 0 ? random.nextDouble(-config.brightness(), config.brightness()) : 0));
            float contrast = (float)
                    (1 + (config.contrast() > 0 ? random.nextDouble(-config.contrast(), config.contrast()) : 0));
            int n = shape.pixels();
            double mean = 0;
            for (int i = 0; i < n; i++) {
                mean += data[offset + i];
            }
            float m = (float) (mean / n);
            for (int i = 0; i < n; i++) {
                float v = data[offset + i];
                data[offset + i] = (m + (v - m) * contrast) * brightness;
            }
        }
    }

    private void turn(float[] data, int offset, int channels, int quarterTurns, boolean flipH, boolean flipV) {
        int h = shape.height();
        int w = shape.width();
        // a copy per call: samples are augmented on several threads at once (replicas, the batch loader)
        float[] scratch = Arrays.copyOfRange(data, offset, offset + channels * h * w);
        int plane = h * w;
        for (int c = 0; c < channels; c++) {
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    int sy = flipV ? h - 1 - y : y;
                    int sx = flipH ? w - 1 - x : x;
                    // rotating the output by k quarter turns: read the source pixel that lands here
                    int ry = sy;
                    int rx = sx;
                    switch (quarterTurns) {
                        case 1 -> {
                            ry = w - 1 - sx;
                            rx = sy;
                        }
                        case 2 -> {
                            ry = h - 1 - sy;
                            rx = w - 1 - sx;
                        }
                        case 3 -> {
                            ry = sx;
                            rx = h - 1 - sy;
                        }
                        default -> {}
                    }
                    data[offset + c * plane + y * w + x] = scratch[c * plane + ry * w + rx];
                }
            }
        }
    }
}
