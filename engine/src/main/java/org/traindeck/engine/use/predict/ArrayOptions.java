package org.traindeck.engine.use.predict;

/**
 * How {@code predict} reads NumPy inputs and lays out what it writes: {@code layout} the images' and volumes' layout
 * ({@code --layout}; null: as each file's shape says, refused where both would fit), {@code divideBy} what every input
 * value is divided by before training's own conversion ({@code --scale}; 1 leaves them).
 */
public record ArrayOptions(ArrayLayout layout, double divideBy) {

    public static final ArrayOptions DEFAULT = new ArrayOptions(null, 1);

    public ArrayOptions {
        if (!(divideBy > 0) || Double.isInfinite(divideBy)) {
            throw new IllegalArgumentException("--scale divides the inputs: a positive number, not " + divideBy);
        }
    }
}
