package org.traindeck.engine.use.predict;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.data.ImageFolderReader;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.outputs.PredictionInputException;

/**
 * Reads image files (PNG, JPEG, BMP, GIF through ImageIO), or every image in a folder and its sub-folders in name
 * order, as a model trained on images takes them: resized smoothly to its size, grey or RGB as it has one channel or
 * three, each pixel's byte as the training source scaled it (1/255 for image files and IDX, a numpy source's scale).
 */
final class ImageInputs {

    static final List<String> EXTENSIONS = List.of(".png", ".jpg", ".jpeg", ".bmp", ".gif");

    private ImageInputs() {}

    static boolean isImage(Path p) {
        String name = p.getFileName() == null ? "" : p.getFileName().toString().toLowerCase(Locale.ROOT);
        return EXTENSIONS.stream().anyMatch(name::endsWith);
    }

    /** The image files the inputs name: files as given, folders' images in path order. */
    static List<Path> files(List<Path> inputs) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path input : inputs) {
            if (Files.isDirectory(input)) {
                List<Path> found;
                try (Stream<Path> s = Files.walk(input)) {
                    found = s.filter(Files::isRegularFile)
                            .filter(ImageInputs::isImage)
                            .filter(p -> !p.getFileName().toString().startsWith("."))
                            .sorted()
                            .toList();
                }
                if (found.isEmpty()) {
                    throw new PredictionInputException(
                            input + " holds no images (" + String.join(", ", EXTENSIONS) + ")");
                }
                files.addAll(found);
            } else if (!Files.isRegularFile(input)) {
                throw new PredictionInputException("no such file or folder: " + input);
            } else {
                files.add(input);
            }
        }
        return files;
    }

    static InputRows read(List<Path> files, PredictionModel model) {
        if (!(model.shape() instanceof SampleShape.Image shape)) {
            throw new PredictionInputException(files.get(0) + " is an image, but the model takes "
                    + NumpyInputs.expected(model) + ": give its inputs as .npy");
        }
        float scale = byteScale(model.source());
        if (shape.channels() != 1 && shape.channels() != 3) {
            throw new PredictionInputException(files.get(0) + " is an image, but the model takes " + shape.channels()
                    + " channels per pixel: an image file gives 1 (grey) or 3 (RGB); give the inputs as .npy "
                    + NumpyInputs.expected(model));
        }
        int length = shape.values();
        float[] values = new float[Math.multiplyExact(files.size(), length)];
        List<String> names = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            Path file = files.get(i);
            BufferedImage image = decode(file);
            ImageFolderReader.writePixels(
                    ImageFolderReader.resize(image, shape.width(), shape.height()),
                    shape.channels(),
                    values,
                    i * length);
            if (scale != 1 / 255f) {
                float factor = scale * 255f;
                for (int j = i * length; j < (i + 1) * length; j++) {
                    values[j] *= factor;
                }
            }
            names.add(file.toString());
        }
        return new InputRows(values, files.size(), names);
    }

    /** How training scaled a pixel's byte; image files cannot stand in for a source of other units. */
    private static float byteScale(SourceConfig source) {
        Float scale = source.pixelScale();
        if (scale != null) {
            return scale;
        }
        throw new PredictionInputException(
                "the model was trained on a " + source.type() + " source, whose values are not an image's "
                        + "pixels: give its inputs as .npy in the source's own units");
    }

    private static BufferedImage decode(Path file) {
        BufferedImage image;
        try {
            image = ImageIO.read(file.toFile());
        } catch (IOException | RuntimeException e) {
            throw new PredictionInputException(
                    file + " cannot be decoded (" + (e.getMessage() == null ? e : e.getMessage())
                            + "): a damaged image",
                    e);
        }
        if (image == null) {
            throw new PredictionInputException(file + " is not an image ImageIO can decode (PNG, JPEG, BMP, GIF)");
        }
        return image;
    }
}
