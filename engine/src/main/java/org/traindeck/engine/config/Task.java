package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * What a model learns to output: a class per sample, real values per sample, a class per pixel or voxel, the input
 * itself (an autoencoder), or the next token at every step of a sequence.
 */
public enum Task {
    CLASSIFICATION("classification"),
    REGRESSION("regression"),
    SEGMENTATION("segmentation"),
    RECONSTRUCTION("reconstruction"),
    SEQUENCE("sequence");

    @JsonValue
    public final String json;

    Task(String json) {
        this.json = json;
    }
}
