package org.traindeck.engine.use.predict;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.outputs.MaskImages;

/**
 * A segmentation model's masks as PNG files in a folder, one per input, named after it ({@code cat.jpg} →
 * {@code cat.png}, row 3 of {@code x.npy} → {@code x_3.png}): palette images whose pixel values are the class ids,
 * so the folder reads back as a training mask folder. With overlays, also {@code <name>.overlay.png}: the input
 * with its mask laid over it.
 */
final class MaskPngWriter {

    /** How strongly a class colour covers the image in an overlay. */
    static final double OVERLAY_OPACITY = 0.45;

    private MaskPngWriter() {}

    static void write(Predictions p, InputRows inputs, SampleShape.Image shape, boolean overlays, Path folder)
            throws IOException {
        int pixels = shape.height() * shape.width();
        Set<String> used = new HashSet<>();
        for (int i = 0; i < p.count(); i++) {
            int[] ids = new int[pixels];
            for (int j = 0; j < pixels; j++) {
                ids[j] = (int) p.classes()[i * pixels + j];
            }
            String name = unique(stem(p.names().get(i)), used);
            Files.write(
                    folder.resolve(name + ".png"), MaskImages.png(MaskImages.mask(ids, shape.width(), shape.height())));
            if (overlays) {
                BufferedImage picture = MaskImages.picture(
                        inputs.values(), i * shape.values(), shape.channels(), shape.height(), shape.width());
                Files.write(
                        folder.resolve(name + ".overlay.png"),
                        MaskImages.png(MaskImages.overlay(picture, ids, OVERLAY_OPACITY)));
            }
        }
    }

    /** The file name without folder and extension; a NumPy row {@code x.npy[3]} as {@code x_3}. */
    static String stem(String input) {
        String name = Path.of(input.replace(':', '_').replace("[", "_").replace("]", ""))
                .getFileName()
                .toString();
        name = name.replace(".npy_", "_").replace(".npz_", "_");
        int dot = name.lastIndexOf('.');
        String stem = dot > 0 ? name.substring(0, dot) : name;
        return stem.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private static String unique(String stem, Set<String> used) {
        String name = stem;
        for (int k = 2; !used.add(name); k++) {
            name = stem + "_" + k;
        }
        return name;
    }
}
