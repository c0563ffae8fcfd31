package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;

/** A folder with one sub-folder per class, holding PNG/JPEG/BMP/GIF images, resized to width × height. */
public record ImageFolderSource(
        @JsonSerialize(using = ConfigPathSerializer.class) String path,

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
