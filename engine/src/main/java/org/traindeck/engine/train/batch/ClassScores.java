package org.traindeck.engine.train.batch;

/**
 * The classes at one position of a batch laid out [n, classes, positions] ({@code base} is the position's first
 * value, the classes {@code positions} apart): the one its one-hot label marks and the one the model scores highest.
 */
public final class ClassScores {

    private ClassScores() {}

    /** The class whose label is set (above 0.5): the last such, 0 where none is. */
    public static int label(float[] labels, int base, int classes, int positions) {
        int label = 0;
        for (int k = 0; k < classes; k++) {
            if (labels[base + k * positions] > 0.5f) {
                label = k;
            }
        }
        return label;
    }

    /** The class scored highest: the first of those that tie. */
    public static int best(float[] out, int base, int classes, int positions) {
        int best = 0;
        for (int k = 1; k < classes; k++) {
            if (out[base + k * positions] > out[base + best * positions]) {
                best = k;
            }
        }
        return best;
    }
}
