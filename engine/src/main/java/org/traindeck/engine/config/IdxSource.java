package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;

/** MNIST-format files ({@code <split>-images-idx3-ubyte[.gz]}, {@code <split>-labels-idx1-ubyte[.gz]}) in a folder. */
public record IdxSource(
        @JsonSerialize(using = ConfigPathSerializer.class) String path,

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
