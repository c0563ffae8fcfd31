package org.traindeck.engine.data;

import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.imageio.ImageIO;

/**
 * Reads a folder with one sub-folder per class (the sub-folder's name is the class name) of PNG, JPEG, BMP or GIF
 * images, resized to the configured size, pixels scaled to [0, 1]. Uses the JDK's ImageIO rather than DataVec's
 * image reader, which would add several hundred MB of OpenCV natives.
 */
public final class ImageFolderReader {

    static final List<String> EXTENSIONS = List.of(".png", ".jpg", ".jpeg", ".bmp", ".gif");

    private ImageFolderReader() {}

    public static Dataset read(
            Path folder, int width, int height, int channels, int limit, List<String> knownClassNames)
            throws IOException {
        List<String> names = knownClassNames != null ? knownClassNames : classFolders(folder);
        if (names.size() < 2) {
            throw new IOException(
                    folder + " needs at least two sub-folders, one per class (found " + names.size() + ")");
        }
        List<Path> files = new ArrayList<>();
        List<Integer> labels = new ArrayList<>();
        for (int c = 0; c < names.size(); c++) {
            Path dir = folder.resolve(names.get(c));
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> s = Files.list(dir)) {
                for (Path f : s.filter(ImageFolderReader::isImage).sorted().toList()) {
                    files.add(f);
                    labels.add(c);
                }
            }
        }
        if (knownClassNames != null) {
            checkKnownClasses(folder, knownClassNames);
        }
        if (files.isEmpty()) {
            throw new IOException(
                    folder + " holds no images (" + String.join(", ", EXTENSIONS) + ") in its class folders");
        }
        int n = limit > 0 ? Math.min(limit, files.size()) : files.size();
        if (limit > 0 && limit < files.size()) {
            // an even spread over the classes, not the first class only
            List<Integer> picked = new ArrayList<>();
            double stride = (double) files.size() / n;
            for (int i = 0; i < n; i++) {
                picked.add((int) (i * stride));
            }
            files = picked.stream().map(files::get).toList();
            List<Integer> all = labels;
            labels = picked.stream().map(all::get).toList();
        }
        int pixels = channels * height * width;
        float[] features = new float[n * pixels];
        int[] classes = new int[n];
        for (int i = 0; i < n; i++) {
            writePixels(resize(decode(files.get(i)), width, height), channels, features, i * pixels);
            classes[i] = labels.get(i);
        }
        return ArrayDatasets.classification(
                features, pixels, classes, names.size(), new SampleShape.Image(channels, height, width), names);
    }

    /** A validation or test folder's classes are the training data's: a class of its own has no output to score. */
    private static void checkKnownClasses(Path folder, List<String> knownClassNames) throws IOException {
        for (String name : classFolders(folder)) {
            if (!knownClassNames.contains(name)) {
                throw new IOException(folder + ": class folder \"" + name + "\" does not occur in the training data "
                        + knownClassNames);
            }
        }
    }

    private static BufferedImage decode(Path file) throws IOException {
        BufferedImage image;
        try {
            image = ImageIO.read(file.toFile());
        } catch (IOException | RuntimeException e) {
            // ImageIO's own message ("Error reading PNG image data") does not say which of thousands of files
            throw new IOException(
                    file + " cannot be decoded (" + (e.getMessage() == null ? e : e.getMessage())
                            + "): a damaged image; remove or replace it",
                    e);
        }
        if (image == null) {
            throw new IOException(file + " is not an image ImageIO can decode");
        }
        return image;
    }

    private static List<String> classFolders(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.filter(Files::isDirectory)
                    .map(p -> p.getFileName().toString())
                    .filter(n -> !n.startsWith("."))
                    .sorted()
                    .toList();
        }
    }

    private static boolean isImage(Path p) {
        String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
        return Files.isRegularFile(p) && EXTENSIONS.stream().anyMatch(name::endsWith);
    }

    public static BufferedImage resize(BufferedImage image, int width, int height) {
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        g.drawImage(image, 0, 0, width, height, null);
        g.dispose();
        return out;
    }

    public static void writePixels(BufferedImage image, int channels, float[] out, int offset) {
        int w = image.getWidth();
        int h = image.getHeight();
        int plane = w * h;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int rgb = image.getRGB(x, y);
                float r = ((rgb >> 16) & 0xff) / 255f;
                float g = ((rgb >> 8) & 0xff) / 255f;
                float b = (rgb & 0xff) / 255f;
                int p = y * w + x;
                if (channels == 1) {
                    out[offset + p] = 0.299f * r + 0.587f * g + 0.114f * b;
                } else {
                    out[offset + p] = r;
                    out[offset + plane + p] = g;
                    out[offset + 2 * plane + p] = b;
                }
            }
        }
    }
}
