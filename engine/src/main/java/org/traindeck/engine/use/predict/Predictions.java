package org.traindeck.engine.use.predict;

import java.util.Arrays;
import java.util.List;

/**
 * A model's outputs for some inputs, one row per input: {@code values} in the network's output layout with shape
 * {@code shape} (class probabilities [N, classes], per-pixel probabilities [N, classes, H, W], reconstructions as the
 * input, values [N, k], next-token probabilities [N, vocabulary, T]), and for class outputs the most likely class of
 * each row, pixel or step ({@code classes}, shape {@code classShape}: the shape without axis 1); else null.
 * {@link OutputLayout} turns the values into TrainDeck's layout for the files.
 */
public record Predictions(float[] values, long[] shape, long[] classes, long[] classShape, List<String> names) {

    public Predictions {
        names = List.copyOf(names);
    }

    public int count() {
        return (int) shape[0];
    }

    /** Values per row. */
    public int rowLength() {
        return values.length / count();
    }

    @Override
    public String toString() {
        return "Predictions" + Arrays.toString(shape);
    }
}
