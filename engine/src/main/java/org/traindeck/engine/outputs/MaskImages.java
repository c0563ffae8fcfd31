package org.traindeck.engine.outputs;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.awt.image.WritableRaster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.imageio.ImageIO;

/**
 * Pictures of images and their masks: a mask as a palette image whose pixel values are the class ids (a training
 * mask folder reads it back as it is), an input image drawn from the model's channels-first values, a mask laid over
 * its image, and pictures side by side.
 */
public final class MaskImages {

    /** Panels drawn side by side are this many pixels apart. */
    static final int GAP = 2;

    private MaskImages() {}

    /**
     * A mask of {@code width × height} class ids (row by row): a palette PNG for up to 256 classes, else 16-bit grey;
     * either way each pixel's value is its class id.
     */
    public static BufferedImage mask(int[] ids, int width, int height) {
        checkLength(ids.length, width, height);
        int max = 0;
        for (int id : ids) {
            if (id < 0) {
                throw new IllegalArgumentException("class id " + id);
            }
            max = Math.max(max, id);
        }
        BufferedImage image = max < 256
                ? new BufferedImage(width, height, BufferedImage.TYPE_BYTE_INDEXED, MaskPalette.colorModel())
                : new BufferedImage(width, height, BufferedImage.TYPE_USHORT_GRAY);
        WritableRaster raster = image.getRaster();
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                raster.setSample(x, y, 0, ids[y * width + x]);
            }
        }
        return image;
    }

    /**
     * An image from channels-first values at {@code offset} ([channels, height, width]): three channels as RGB, any
     * other count as the grey of the first. Values in [0, 1] are drawn as they are; other ranges (standardised
     * inputs) are stretched from their minimum to their maximum.
     */
    public static BufferedImage picture(float[] values, int offset, int channels, int height, int width) {
        int plane = height * width;
        if (offset < 0 || offset + channels * plane > values.length) {
            throw new IllegalArgumentException("values for " + channels + "×" + height + "×" + width + " at " + offset
                    + " overrun " + values.length);
        }
        float min = Float.POSITIVE_INFINITY;
        float max = Float.NEGATIVE_INFINITY;
        for (int i = offset; i < offset + channels * plane; i++) {
            min = Math.min(min, values[i]);
            max = Math.max(max, values[i]);
        }
        boolean unit = min >= 0 && max <= 1;
        float low = unit ? 0 : min;
        float range = unit ? 1 : Math.max(max - min, 1e-12f);
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int p = offset + y * width + x;
                int r = level(values[p], low, range);
                int rgb = channels == 3
                        ? r << 16 | level(values[p + plane], low, range) << 8 | level(values[p + 2 * plane], low, range)
                        : r << 16 | r << 8 | r;
                image.setRGB(x, y, rgb);
            }
        }
        return image;
    }

    /**
     * {@code picture} with each pixel of a class other than 0 tinted in its class colour ({@code opacity} 0..1);
     * class 0 (the background) is left clear so the image shows through.
     */
    public static BufferedImage overlay(BufferedImage picture, int[] ids, double opacity) {
        int width = picture.getWidth();
        int height = picture.getHeight();
        checkLength(ids.length, width, height);
        if (!(opacity >= 0 && opacity <= 1)) {
            throw new IllegalArgumentException("opacity " + opacity);
        }
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int base = picture.getRGB(x, y);
                int id = ids[y * width + x];
                out.setRGB(x, y, id == 0 ? base & 0xFFFFFF : blend(base, MaskPalette.rgb(id), opacity));
            }
        }
        return out;
    }

    /** The panels left to right, top-aligned, {@value #GAP} pixels apart on white. */
    public static BufferedImage sideBySide(BufferedImage... panels) {
        if (panels.length == 0) {
            throw new IllegalArgumentException("no panels");
        }
        int width = GAP * (panels.length - 1);
        int height = 0;
        for (BufferedImage p : panels) {
            width += p.getWidth();
            height = Math.max(height, p.getHeight());
        }
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        int x = 0;
        for (BufferedImage p : panels) {
            g.drawImage(p, x, 0, null);
            x += p.getWidth() + GAP;
        }
        g.dispose();
        return out;
    }

    /** The image as PNG bytes. */
    public static byte[] png(BufferedImage image) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, "png", out)) {
                throw new IllegalStateException("no PNG writer for image type " + image.getType());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static int level(float v, float low, float range) {
        int level = Math.round((v - low) / range * 255);
        return Math.max(0, Math.min(255, level));
    }

    private static int blend(int base, int tint, double opacity) {
        int out = 0;
        for (int shift = 16; shift >= 0; shift -= 8) {
            int b = base >> shift & 0xFF;
            int t = tint >> shift & 0xFF;
            out |= (int) Math.round(b * (1 - opacity) + t * opacity) << shift;
        }
        return out;
    }

    private static void checkLength(int length, int width, int height) {
        if (width < 1 || height < 1 || length != width * height) {
            throw new IllegalArgumentException(length + " class ids for a " + width + "×" + height + " mask");
        }
    }
}
