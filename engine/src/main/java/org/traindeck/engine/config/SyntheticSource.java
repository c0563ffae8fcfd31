package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * Generated data for demos and tests: Gaussian class clusters (classification), a noisy non-linear function
 * (regression), or, with {@code imageShape}, images whose class is a bright bar's position.
 */
public record SyntheticSource(
        Task task,
        int samples,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer features,
        @JsonInclude(JsonInclude.Include.NON_NULL) List<Integer> imageShape,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) int numClasses,
        double noise,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) int limit)
        implements SourceConfig {
    public SyntheticSource {
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
