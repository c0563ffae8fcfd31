package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/** One data source. {@code limit} (0 = all) caps the number of samples read, for quick runs. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = IdxSource.class, name = "idx"),
    @JsonSubTypes.Type(value = CsvSource.class, name = "csv"),
    @JsonSubTypes.Type(value = ImageFolderSource.class, name = "images"),
    @JsonSubTypes.Type(value = MaskFoldersSource.class, name = "masks"),
    @JsonSubTypes.Type(value = SyntheticSource.class, name = "synthetic"),
    @JsonSubTypes.Type(value = TextSource.class, name = "text"),
    @JsonSubTypes.Type(value = NumpySource.class, name = "numpy")
})
public sealed interface SourceConfig
        permits IdxSource, CsvSource, ImageFolderSource, MaskFoldersSource, SyntheticSource, TextSource, NumpySource {

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
        R idx(IdxSource s);

        R csv(CsvSource s);

        R images(ImageFolderSource s);

        R masks(MaskFoldersSource s);

        R synthetic(SyntheticSource s);

        R text(TextSource s);

        R numpy(NumpySource s);
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
}
