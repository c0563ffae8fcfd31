package org.traindeck.engine.train.samples;

import org.traindeck.engine.events.SamplesEvent;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * An example's input (or a reconstruction of it) as a PNG: three channels as RGB, otherwise the first channel in grey,
 * stretched from the given range to 0..255 (the inputs are normalised, so their own range is what shows them).
 */
public final class InputPictures {

    private InputPictures() {
    }

    /**
     * The (channels, height, width) image at {@code offset} of {@code chw}, values from {@code lo} to {@code hi}
     * spread over black to white.
     */
    public static SamplesEvent.Picture of(String label, float[] chw, int offset, int channels, int height, int width, float lo, float hi) {
        boolean rgb = channels == 3;
        BufferedImage image = new BufferedImage(width, height, rgb ? BufferedImage.TYPE_INT_RGB : BufferedImage.TYPE_BYTE_GRAY);
        int plane = height * width;
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int at = offset + y * width + x;
                if (rgb) {
                    int r = level(chw[at], lo, hi);
                    int g = level(chw[at + plane], lo, hi);
                    int b = level(chw[at + 2 * plane], lo, hi);
                    image.setRGB(x, y, (r << 16) | (g << 8) | b);
                } else {
                    image.getRaster().setSample(x, y, 0, level(chw[at], lo, hi));
                }
            }
        }
        return new SamplesEvent.Picture(label, width, height, rgb ? 3 : 1, png(image));
    }

    /** The smallest and largest finite value of {@code n} values from {@code offset}: the range to show them in. */
    public static float[] range(float[] values, int offset, int n) {
        float lo = Float.POSITIVE_INFINITY;
        float hi = Float.NEGATIVE_INFINITY;
        for (int i = offset; i < offset + n; i++) {
            float v = values[i];
            if (Float.isFinite(v)) {
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        return lo > hi ? new float[] {0, 1} : new float[] {lo, hi};
    }

    public static byte[] png(BufferedImage image) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 + image.getWidth() * image.getHeight());
        try {
            if (!ImageIO.write(image, "png", out)) {
                throw new IllegalStateException("no PNG writer in this Java");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static int level(float v, float lo, float hi) {
        if (!Float.isFinite(v)) {
            return 0;
        }
        float t = hi > lo ? (v - lo) / (hi - lo) : 0.5f;
        return Math.max(0, Math.min(255, Math.round(t * 255)));
    }
}
