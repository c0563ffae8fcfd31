package org.traindeck.engine.model.kernels;

import org.bytedeco.javacpp.FloatPointer;

/** A kernel layer's parameters and gradients by key, as the block's parts read and write them. */
public interface BlockParameters {

    /** A parameter's native memory (a weight matrix for Sgemm). */
    FloatPointer pointer(String key);

    /** A gradient's native memory. */
    FloatPointer gradientPointer(String key);

    /** A parameter's values, on the heap. */
    float[] vector(String key);

    /** Writes (not adds) the first {@code n} values of a gradient. */
    void setGradient(String key, float[] values, int n);
}
