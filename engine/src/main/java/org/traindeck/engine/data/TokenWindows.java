package org.traindeck.engine.data;

/**
 * Windows of {@code length} tokens cut from one token stream every {@code stride} tokens, starting {@code shift}
 * tokens in: the inputs of next-token prediction (shift 0) and their targets (shift 1).
 */
record TokenWindows(int[] tokens, int length, int stride, int shift, int limit) implements SampleArray {

    @Override
    public int size() {
        int windows = tokens.length <= length ? 0 : (tokens.length - length - 1) / stride + 1;
        return limit > 0 ? Math.min(limit, windows) : windows;
    }

    @Override
    public void read(int sample, float[] out, int offset) {
        int from = sample * stride + shift;
        for (int i = 0; i < length; i++) {
            out[offset + i] = tokens[from + i];
        }
    }
}
