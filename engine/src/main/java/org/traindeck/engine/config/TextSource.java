package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;

/**
 * A UTF-8 text read as characters for next-token prediction: windows of {@code context} characters every
 * {@code stride} (default: the context), each predicting the same window one character later.
 */
public record TextSource(
        @JsonSerialize(using = ConfigPathSerializer.class) String path,

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
