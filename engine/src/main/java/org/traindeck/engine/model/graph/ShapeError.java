package org.traindeck.engine.model.graph;

/** A node whose inputs do not fit it, said in the user's words with what would fit. */
public final class ShapeError extends RuntimeException {

    private final String option;

    public ShapeError(String message) {
        this(null, message);
    }

    /** @param option the node's option the error is at (its config path's last part), or null: the node */
    public ShapeError(String option, String message) {
        super(message);
        this.option = option;
    }

    public String option() {
        return option;
    }
}
