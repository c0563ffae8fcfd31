package org.traindeck.engine.data;

import org.traindeck.engine.data.numpy.NpyArray;

/**
 * The samples of a memory-mapped NumPy array, as floats: channels-last images and volumes are turned channels-first
 * on the way ({@code channels} to move from last to first; 0 reads a sample as it is stored), and the inputs scaled.
 * Reads of different samples may come from several threads.
 */
public record NpySamples(NpyArray array, int size, int length, int channels, float scale) implements SampleArray {

    @Override
    public void read(int sample, float[] out, int offset) {
        if (channels <= 1) {
            array.readSample(sample, out, offset);
        } else {
            float[] stored = new float[length];
            array.readSample(sample, stored, 0);
            int positions = length / channels;
            for (int p = 0; p < positions; p++) {
                for (int c = 0; c < channels; c++) {
                    out[offset + c * positions + p] = stored[p * channels + c];
                }
            }
        }
        if (scale != 1f) {
            for (int i = 0; i < length; i++) {
                out[offset + i] *= scale;
            }
        }
    }
}
