package org.traindeck.engine.model.graph;

/** A node whose inputs do not fit it, said in the user's words with what would fit. */
public final class ShapeError extends RuntimeException {

    public ShapeError(String message) {
        super(message);
    }
}
