package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;

/**
 * A CSV file (optionally gzip-compressed) with one sample per row. {@code labelColumn} counts from 0; negative
 * counts from the end (-1 = last). With {@code imageShape} [height, width, channels] the features are an image.
 */
public record CsvSource(
        @JsonSerialize(using = ConfigPathSerializer.class) String path,

        int labelColumn,
        boolean header,
        String delimiter,
        Task task,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer numClasses,
        @JsonInclude(JsonInclude.Include.NON_NULL) List<Integer> imageShape,
        SourceConfig.Normalize normalize,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) int limit)
        implements SourceConfig {
    public CsvSource {
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
