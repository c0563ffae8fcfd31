package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * What a model learns to output: a class per sample, real values per sample, a class per pixel or voxel, the input
 * itself (an autoencoder), the next token at every step of a sequence, or the noise (or clean sample) a denoising
 * diffusion model recovers from a noised sample.
 */
public enum Task {
    CLASSIFICATION("classification"),
    REGRESSION("regression"),
    SEGMENTATION("segmentation"),
    RECONSTRUCTION("reconstruction"),
    SEQUENCE("sequence"),
    DIFFUSION("diffusion");

    @JsonValue
    public final String json;

    Task(String json) {
        this.json = json;
    }
}
