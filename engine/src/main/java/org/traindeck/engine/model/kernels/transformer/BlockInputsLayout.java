package org.traindeck.engine.model.kernels.transformer;

import java.util.Arrays;
import org.traindeck.engine.model.kernels.HostFloats;

/**
 * Where a packed block input ({@link BlockInputsVertex}) keeps each part, per example of {@code size} floats: T, the
 * tokens [W, T], the condition [C], the context [W, S]; and the copies out of it and of the gradients back into it.
 */
record BlockInputsLayout(int mb, int steps, int width, int conditionWidth, int contextSteps, int size) {

    /**
     * The layout of {@code packed} (heap copy of [mb, size]) for a layer of that width and condition width.
     *
     * @throws IllegalStateException when the array does not split so (the data differ from what the graph was built for)
     */
    static BlockInputsLayout of(
            float[] packed, int mb, int size, int width, int conditionWidth, boolean context, String who) {
        int steps = Math.round(packed[0]);
        int rest = size - 1 - width * steps - conditionWidth;
        int contextSteps = context ? rest / width : 0;
        if (steps <= 0 || rest < 0 || rest != contextSteps * width || (context && contextSteps == 0)) {
            throw new IllegalStateException(who + ": its packed input of " + size
                    + " floats an example does not split into " + width + "-wide tokens, a condition of "
                    + conditionWidth + (context ? " and context tokens" : ""));
        }
        return new BlockInputsLayout(mb, steps, width, conditionWidth, contextSteps, size);
    }

    private int conditionAt(int e) {
        return e * size + 1 + width * steps;
    }

    private int contextAt(int e) {
        return conditionAt(e) + conditionWidth;
    }

    /** The tokens [mb, W, T] (c order). */
    void tokens(float[] packed, float[] into) {
        int n = width * steps;
        for (int e = 0; e < mb; e++) {
            System.arraycopy(packed, e * size + 1, into, e * n, n);
        }
    }

    /** The conditions [mb, C] into {@code kept} (grown when shorter), returned. */
    float[] condition(float[] packed, float[] kept) {
        float[] out = HostFloats.atLeast(kept, (long) mb * conditionWidth);
        for (int e = 0; e < mb; e++) {
            System.arraycopy(packed, conditionAt(e), out, e * conditionWidth, conditionWidth);
        }
        return out;
    }

    /** The context tokens [mb, W, S] (c order) into {@code kept} (grown when shorter), returned. */
    float[] context(float[] packed, float[] kept) {
        int n = width * contextSteps;
        float[] out = HostFloats.atLeast(kept, (long) mb * n);
        for (int e = 0; e < mb; e++) {
            System.arraycopy(packed, contextAt(e), out, e * n, n);
        }
        return out;
    }

    /**
     * The packed gradient: none for T, the tokens' [mb, W, T], the condition's and the context's (each null: zero),
     * into the first mb size floats of {@code kept} (grown when shorter), returned.
     */
    float[] gradient(float[] tokens, float[] condition, float[] context, float[] kept) {
        float[] out = HostFloats.atLeast(kept, (long) mb * size);
        int n = width * steps;
        int m = width * contextSteps;
        for (int e = 0; e < mb; e++) {
            out[e * size] = 0;
            System.arraycopy(tokens, e * n, out, e * size + 1, n);
            if (condition != null) {
                System.arraycopy(condition, e * conditionWidth, out, conditionAt(e), conditionWidth);
            } else {
                Arrays.fill(out, conditionAt(e), contextAt(e), 0f);
            }
            if (context != null) {
                System.arraycopy(context, e * m, out, contextAt(e), m);
            } else {
                Arrays.fill(out, contextAt(e), (e + 1) * size, 0f);
            }
        }
        return out;
    }
}
