package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One data source. {@code limit} (0 = all) caps the number of samples read, for quick runs. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = SourceConfig.Idx.class, name = "idx"),
    @JsonSubTypes.Type(value = SourceConfig.Csv.class, name = "csv"),
    @JsonSubTypes.Type(value = SourceConfig.ImageFolder.class, name = "images"),
    @JsonSubTypes.Type(value = SourceConfig.MaskFolders.class, name = "masks"),
    @JsonSubTypes.Type(value = SourceConfig.Synthetic.class, name = "synthetic"),
    @JsonSubTypes.Type(value = SourceConfig.Text.class, name = "text"),
    @JsonSubTypes.Type(value = SourceConfig.Numpy.class, name = "numpy")
})
public sealed interface SourceConfig {

    String type();

    int limit();

    /** Whether the samples are images (so CNNs and augmentation apply). */
    @JsonIgnore
    boolean isImage();

    /** What the samples train: the source's own {@code task}, or the one its kind implies. */
    Task task();

    /**
     * Every file and folder the source reads, as the config names them (an array inside an archive, "data.npz:x": the
     * archive); none for generated data. Caches and the cluster's executors fingerprint these.
     */
    @JsonIgnore
    List<String> paths();

    /**
     * What one byte of an image file becomes in this source's inputs (a pixel's 0..255 scaled as its reader scales
     * it), or null when its inputs are not pixels.
     */
    @JsonIgnore
    Float pixelScale();

    /**
     * The names graph nodes read this source's inputs by: {@code input} for a source of one input, the config's names
     * for a numpy source of several.
     */
    @JsonIgnore
    default List<String> inputNames() {
        return List.of(NumpyInputs.SINGLE);
    }

    /** Hands this source to the visitor's method for its variant: a new variant fails to compile until every visitor takes it. */
    <R> R accept(Visitor<R> visitor);

    /** Something done to each kind of source, one method per variant. */
    interface Visitor<R> {
        R idx(Idx s);

        R csv(Csv s);

        R images(ImageFolder s);

        R masks(MaskFolders s);

        R synthetic(Synthetic s);

        R text(Text s);

        R numpy(Numpy s);
    }

    // options only one kind of source has: the others leave them at "none"

    /** How a CSV source scales its columns. */
    default Normalize normalize() {
        return Normalize.NONE;
    }

    /** The Gaussian noise a numpy reconstruction source adds to its training inputs (a denoising autoencoder). */
    default double reconstructionNoise() {
        return 0;
    }

    /** Whether the inputs are stored channels-last (a numpy source's layout). */
    default boolean channelsLast() {
        return false;
    }

    /** The folder whose sub-folders name the classes (an image folder's), or null. */
    default String classFolder() {
        return null;
    }

    enum Normalize {
        NONE("none"),
        MINMAX("minmax"),
        STANDARDIZE("standardize");

        @JsonValue
        public final String json;

        Normalize(String json) {
            this.json = json;
        }
    }

    /** MNIST-format files ({@code <split>-images-idx3-ubyte[.gz]}, {@code <split>-labels-idx1-ubyte[.gz]}) in a folder. */
    record Idx(
            @JsonSerialize(using = ConfigPathSerializer.class)
            String path,

            String split,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) int limit)
            implements SourceConfig {
        @Override
        public String type() {
            return "idx";
        }

        @Override
        public boolean isImage() {
            return true;
        }

        @Override
        public Task task() {
            return Task.CLASSIFICATION;
        }

        @Override
        public List<String> paths() {
            return List.of(path);
        }

        @Override
        public Float pixelScale() {
            return 1 / 255f;
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.idx(this);
        }
    }

    /**
     * A CSV file (optionally gzip-compressed) with one sample per row. {@code labelColumn} counts from 0; negative
     * counts from the end (-1 = last). With {@code imageShape} [height, width, channels] the features are an image.
     */
    record Csv(
            @JsonSerialize(using = ConfigPathSerializer.class)
            String path,

            int labelColumn,
            boolean header,
            String delimiter,
            Task task,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer numClasses,
            @JsonInclude(JsonInclude.Include.NON_NULL) List<Integer> imageShape,
            Normalize normalize,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) int limit)
            implements SourceConfig {
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

        @Override
        public List<String> paths() {
            return List.of(path);
        }

        @Override
        public Float pixelScale() {
            return null;
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.csv(this);
        }
    }

    /** A folder with one sub-folder per class, holding PNG/JPEG/BMP/GIF images, resized to width × height. */
    record ImageFolder(
            @JsonSerialize(using = ConfigPathSerializer.class)
            String path,

            int width,
            int height,
            int channels,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) int limit)
            implements SourceConfig {
        @Override
        public String type() {
            return "images";
        }

        @Override
        public boolean isImage() {
            return true;
        }

        @Override
        public Task task() {
            return Task.CLASSIFICATION;
        }

        @Override
        public List<String> paths() {
            return List.of(path);
        }

        @Override
        public Float pixelScale() {
            return 1 / 255f;
        }

        @Override
        public String classFolder() {
            return path;
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.images(this);
        }
    }

    /**
     * Segmentation from two folders: images, and mask PNGs of class ids paired with them by file name (without the
     * extension); both resized to width × height, the masks by nearest neighbour.
     */
    @JsonPropertyOrder({"images", "masks", "width", "height", "channels", "numClasses", "limit"})
    record MaskFolders(
            @JsonSerialize(using = ConfigPathSerializer.class)
            String images,

            @JsonSerialize(using = ConfigPathSerializer.class)
            String masks,

            int width,
            int height,
            int channels,
            int numClasses,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) int limit)
            implements SourceConfig {
        @Override
        public String type() {
            return "masks";
        }

        @Override
        public boolean isImage() {
            return true;
        }

        @Override
        public Task task() {
            return Task.SEGMENTATION;
        }

        @Override
        public List<String> paths() {
            return List.of(images, masks);
        }

        @Override
        public Float pixelScale() {
            return 1 / 255f;
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.masks(this);
        }
    }

    /**
     * Generated data for demos and tests: Gaussian class clusters (classification), a noisy non-linear function
     * (regression), or, with {@code imageShape}, images whose class is a bright bar's position.
     */
    record Synthetic(
            Task task,
            int samples,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer features,
            @JsonInclude(JsonInclude.Include.NON_NULL) List<Integer> imageShape,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) int numClasses,
            double noise,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) int limit)
            implements SourceConfig {
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

        @Override
        public List<String> paths() {
            return List.of();
        }

        @Override
        public Float pixelScale() {
            return null;
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.synthetic(this);
        }
    }

    /**
     * A UTF-8 text read as characters for next-token prediction: windows of {@code context} characters every
     * {@code stride} (default: the context), each predicting the same window one character later.
     */
    record Text(
            @JsonSerialize(using = ConfigPathSerializer.class)
            String path,

            int context,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer stride,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) int limit)
            implements SourceConfig {
        @Override
        public String type() {
            return "text";
        }

        @Override
        public boolean isImage() {
            return false;
        }

        @Override
        public Task task() {
            return Task.SEQUENCE;
        }

        @Override
        public List<String> paths() {
            return List.of(path);
        }

        @Override
        public Float pixelScale() {
            return null;
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.text(this);
        }

        public int strideOrContext() {
            return stride == null ? context : stride;
        }
    }

    /**
     * NumPy arrays: {@code inputs} and {@code targets} each a {@code .npy} file or {@code file.npz:name}, samples along
     * the first axis; images and volumes channels-last ([N, H, W, C], as NumPy and Keras) or channels-first ([N, C, H,
     * W], as PyTorch). {@code scale} multiplies the inputs (1/255 for bytes); {@code noise} adds Gaussian noise to a
     * reconstruction's training inputs (a denoising autoencoder). For next-token prediction the inputs are one stream of
     * token ids cut into windows of {@code context}. A diffusion source may {@code derive} inputs from its targets (a
     * cascade's low-resolution conditioning), which come after its own inputs.
     */
    @JsonPropertyOrder({"inputs", "targets", "task", "layout", "numClasses", "context", "scale", "noise", "limit"})
    record Numpy(
            @JsonInclude(JsonInclude.Include.NON_EMPTY) NumpyInputs inputs,

            @JsonInclude(JsonInclude.Include.NON_NULL) @JsonSerialize(using = ConfigPathSerializer.class)
            String targets,

            @JsonInclude(JsonInclude.Include.NON_NULL) @JsonSerialize(using = ConfigPathSerializer.class)
            String targetMask,

            Task task,
            String layout,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer numClasses,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer context,
            double scale,
            double noise,
            @JsonInclude(JsonInclude.Include.NON_NULL) DiffusionConfig diffusion,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, DeriveConfig> derive,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) int limit)
            implements SourceConfig {
        public Numpy {
            derive = derive == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(derive));
        }

        @Override
        public String type() {
            return "numpy";
        }

        @Override
        public boolean isImage() {
            return false;
        }

        @Override
        public List<String> paths() {
            List<String> files = new ArrayList<>(inputs.files());
            for (String spec : Arrays.asList(targets, targetMask)) {
                if (spec != null && !files.contains(fileOf(spec))) {
                    files.add(fileOf(spec));
                }
            }
            return List.copyOf(files);
        }

        @Override
        public List<String> inputNames() {
            if (task != Task.DIFFUSION) {
                return inputs.names();
            }
            List<String> conditioning = new ArrayList<>(inputs.names());
            conditioning.addAll(derive.keySet());
            return DiffusionConfig.inputNames(conditioning);
        }

        @Override
        public Float pixelScale() {
            return (float) scale;
        }

        @Override
        public double reconstructionNoise() {
            return noise;
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.numpy(this);
        }

        /** The file of "x.npy" or "data.npz:x". */
        public static String fileOf(String spec) {
            int colon = spec.lastIndexOf(':');
            return colon > 0 && spec.substring(0, colon).endsWith(".npz") ? spec.substring(0, colon) : spec;
        }

        @Override
        public boolean channelsLast() {
            return "channelsLast".equals(layout);
        }
    }
}
