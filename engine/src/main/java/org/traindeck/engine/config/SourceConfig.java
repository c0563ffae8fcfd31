package org.traindeck.engine.config;

import java.util.List;

/** One data source. {@code limit} (0 = all) caps the number of samples read, for quick runs. */
public sealed interface SourceConfig {

    String type();

    int limit();

    /** Whether the samples are images (so CNNs and augmentation apply). */
    boolean isImage();

    enum Normalize {
        NONE("none"), MINMAX("minmax"), STANDARDIZE("standardize");

        public final String json;

        Normalize(String json) {
            this.json = json;
        }

        public static Normalize of(String json) {
            for (Normalize n : values()) {
                if (n.json.equals(json)) {
                    return n;
                }
            }
            throw new IllegalArgumentException(json);
        }
    }

    /** MNIST-format files ({@code <split>-images-idx3-ubyte[.gz]}, {@code <split>-labels-idx1-ubyte[.gz]}) in a folder. */
    record Idx(String path, String split, int limit) implements SourceConfig {
        @Override
        public String type() {
            return "idx";
        }

        @Override
        public boolean isImage() {
            return true;
        }
    }

    /**
     * A CSV file (optionally gzip-compressed) with one sample per row. {@code labelColumn} counts from 0; negative
     * counts from the end (-1 = last). With {@code imageShape} [height, width, channels] the features are an image.
     */
    record Csv(String path, int labelColumn, boolean header, String delimiter, Task task, Integer numClasses,
               List<Integer> imageShape, Normalize normalize, int limit) implements SourceConfig {
        public Csv {
            imageShape = imageShape == null ? null : List.copyOf(imageShape);
        }

        @Override
        public String type() {
            return "csv";
        }

        @Override
        public boolean isImage() {
            return imageShape != null;
        }
    }

    /** A folder with one sub-folder per class, holding PNG/JPEG/BMP/GIF images, resized to width × height. */
    record ImageFolder(String path, int width, int height, int channels, int limit) implements SourceConfig {
        @Override
        public String type() {
            return "images";
        }

        @Override
        public boolean isImage() {
            return true;
        }
    }

    /**
     * Generated data for demos and tests: Gaussian class clusters (classification), a noisy non-linear function
     * (regression), or, with {@code imageShape}, images whose class is a bright bar's position.
     */
    record Synthetic(Task task, int samples, Integer features, List<Integer> imageShape, int numClasses, double noise,
                     int limit) implements SourceConfig {
        public Synthetic {
            imageShape = imageShape == null ? null : List.copyOf(imageShape);
        }

        @Override
        public String type() {
            return "synthetic";
        }

        @Override
        public boolean isImage() {
            return imageShape != null;
        }
    }
}
