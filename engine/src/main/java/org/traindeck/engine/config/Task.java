package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonValue;

/** What the labels are: class indices (softmax, cross-entropy) or real values (identity, MSE). */
public enum Task {
    CLASSIFICATION("classification"), REGRESSION("regression");

    @JsonValue
    public final String json;

    Task(String json) {
        this.json = json;
    }
}
