package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * On-the-fly image augmentation, applied to training batches only. {@code brightness} and {@code contrast} are the
 * largest relative change (0.1 = ±10%).
 */
public record AugmentationConfig(
        boolean rotate90, boolean flipHorizontal, boolean flipVertical, double brightness, double contrast) {

    @JsonIgnore
    public boolean isActive() {
        return rotate90 || flipHorizontal || flipVertical || brightness > 0 || contrast > 0;
    }
}
