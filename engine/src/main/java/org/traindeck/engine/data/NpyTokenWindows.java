package org.traindeck.engine.data;

import org.traindeck.engine.data.numpy.NpyArray;

/** Windows of {@code length} token ids from a memory-mapped one-dimensional array, one every {@code length}. */
record NpyTokenWindows(NpyArray tokens, int size, int length, int shift) implements SampleArray {

    @Override
    public void read(int sample, float[] out, int offset) {
        tokens.readSamples((long) sample * length + shift, length, out, offset);
    }
}
