package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;

/**
 * Segmentation from two folders: images, and mask PNGs of class ids paired with them by file name (without the
 * extension); both resized to width × height, the masks by nearest neighbour.
 */
@JsonPropertyOrder({"images", "masks", "width", "height", "channels", "numClasses", "limit"})
public record MaskFoldersSource(
        @JsonSerialize(using = ConfigPathSerializer.class) String images,

        @JsonSerialize(using = ConfigPathSerializer.class) String masks,

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
