package org.traindeck.engine.data;

/**
 * N samples of a fixed number of values each, read one sample at a time as floats: held in memory, memory-mapped
 * from a NumPy file, or cut from a token stream. Reads of different samples may come from several threads at once.
 */
public interface SampleArray {

    /** The number of samples. */
    int size();

    /** Values per sample. */
    int length();

    /** Copies sample {@code sample}'s values into {@code out} at {@code offset}. */
    void read(int sample, float[] out, int offset);

    /** The samples at {@code indices}, in that order: copied when they are in memory, a view otherwise. */
    default SampleArray select(int[] indices) {
        return new IndexedSamples(this, indices);
    }
}
