package org.traindeck.engine.data;

import java.awt.image.BufferedImage;
import java.awt.image.IndexColorModel;
import java.awt.image.Raster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.MaskFoldersSource;
import org.traindeck.engine.config.Task;

/**
 * Segmentation data from a folder of images and a folder of masks paired by file name without its extension
 * ({@code cat.jpg} with {@code cat.png}). A mask's pixels are class ids: a grayscale image's values, or a palette
 * image's palette indices (its colours do not matter). Images are resized smoothly, masks by nearest neighbour, so
 * that no pixel gets a blend of two ids. Every problem names the config key and the file.
 */
final class MaskFolderReader {

    private MaskFolderReader() {}

    static Dataset read(Path baseDir, MaskFoldersSource source, String at) {
        Path imageDir = baseDir.resolve(source.images()).normalize();
        Path maskDir = baseDir.resolve(source.masks()).normalize();
        Map<String, Path> images = byStem(imageDir, at + ".images");
        Map<String, Path> masks = byStem(maskDir, at + ".masks");
        for (Map.Entry<String, Path> mask : masks.entrySet()) {
            if (!images.containsKey(mask.getKey())) {
                throw new InvalidConfigException(
                        at + ".masks",
                        "the mask " + mask.getValue().getFileName() + " has no image named " + mask.getKey() + ".* in "
                                + imageDir + ": add the image or remove the mask");
            }
        }
        for (Map.Entry<String, Path> image : images.entrySet()) {
            if (!masks.containsKey(image.getKey())) {
                throw new InvalidConfigException(
                        at + ".masks",
                        "the image " + image.getValue().getFileName() + " has no mask named " + image.getKey()
                                + ".png in " + maskDir + ": add its mask or remove the image");
            }
        }
        if (images.isEmpty()) {
            throw new InvalidConfigException(
                    at + ".images",
                    imageDir + " holds no images (" + String.join(", ", ImageFolderReader.EXTENSIONS) + ")");
        }
        List<String> stems = new ArrayList<>(images.keySet());
        int n = source.limit() > 0 ? Math.min(source.limit(), stems.size()) : stems.size();
        int w = source.width();
        int h = source.height();
        int pixels = source.channels() * h * w;
        float[] inputs = new float[n * pixels];
        float[] ids = new float[n * h * w];
        for (int i = 0; i < n; i++) {
            Path imageFile = images.get(stems.get(i));
            Path maskFile = masks.get(stems.get(i));
            BufferedImage image = decode(imageFile, at + ".images");
            BufferedImage mask = decode(maskFile, at + ".masks");
            if (image.getWidth() != mask.getWidth() || image.getHeight() != mask.getHeight()) {
                throw new InvalidConfigException(
                        at + ".masks",
                        "the mask " + maskFile + " is " + mask.getWidth() + "×" + mask.getHeight()
                                + " pixels but its image " + imageFile.getFileName() + " is " + image.getWidth() + "×"
                                + image.getHeight()
                                + ": a mask must cover its image pixel for pixel");
            }
            ImageFolderReader.writePixels(ImageFolderReader.resize(image, w, h), source.channels(), inputs, i * pixels);
            readIds(mask, maskFile, source.numClasses(), w, h, ids, i * h * w, at + ".masks");
        }
        return Dataset.of(
                new FloatSamples(inputs, pixels),
                new SampleShape.Image(source.channels(), h, w),
                Task.SEGMENTATION,
                new FloatSamples(ids, h * w),
                source.numClasses(),
                null,
                null);
    }

    /** The folder's images by file name without extension, in name order. */
    private static Map<String, Path> byStem(Path dir, String at) {
        Map<String, Path> out = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path f : s.filter(Files::isRegularFile).sorted().toList()) {
                String name = f.getFileName().toString();
                int dot = name.lastIndexOf('.');
                if (dot <= 0
                        || !ImageFolderReader.EXTENSIONS.contains(
                                name.substring(dot).toLowerCase(Locale.ROOT))) {
                    continue;
                }
                Path before = out.put(name.substring(0, dot), f);
                if (before != null) {
                    throw new InvalidConfigException(
                            at,
                            before.getFileName() + " and " + name + " in " + dir
                                    + " have the same name: which one pairs with the other folder's file is unclear; rename one");
                }
            }
        } catch (IOException e) {
            throw new InvalidConfigException(at, "cannot list " + dir + ": " + e.getMessage());
        }
        return out;
    }

    private static BufferedImage decode(Path file, String at) {
        BufferedImage image;
        try {
            image = ImageIO.read(file.toFile());
        } catch (IOException | RuntimeException e) {
            throw new InvalidConfigException(
                    at,
                    file + " cannot be decoded (" + (e.getMessage() == null ? e : e.getMessage())
                            + "): a damaged image; remove or replace it");
        }
        if (image == null) {
            throw new InvalidConfigException(at, file + " is not an image ImageIO can decode");
        }
        return image;
    }

    /** The mask's class ids, nearest-neighbour resized to w × h, into {@code out} at {@code offset}. */
    private static void readIds(
            BufferedImage mask, Path file, int classes, int w, int h, float[] out, int offset, String at) {
        Raster raster = mask.getRaster();
        if (raster.getNumBands() != 1 && !(mask.getColorModel() instanceof IndexColorModel)) {
            throw new InvalidConfigException(
                    at,
                    file + " has " + raster.getNumBands() + " colour channels: a mask holds one class id per "
                            + "pixel, as a grayscale or a palette PNG");
        }
        int mw = mask.getWidth();
        int mh = mask.getHeight();
        for (int y = 0; y < mh; y++) {
            for (int x = 0; x < mw; x++) {
                int id = raster.getSample(x, y, 0);
                if (id >= classes) {
                    throw new InvalidConfigException(
                            at,
                            file + ": pixel (x " + x + ", y " + y + ") holds class " + id + ", but numClasses is "
                                    + classes + " (ids 0.." + (classes - 1) + "): raise numClasses or fix the mask");
                }
            }
        }
        for (int y = 0; y < h; y++) {
            int sy = (int) ((y + 0.5) * mh / h);
            for (int x = 0; x < w; x++) {
                int sx = (int) ((x + 0.5) * mw / w);
                out[offset + y * w + x] = raster.getSample(sx, sy, 0);
            }
        }
    }
}
