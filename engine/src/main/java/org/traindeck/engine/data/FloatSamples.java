package org.traindeck.engine.data;

/** Samples held in memory, row by row. */
public record FloatSamples(float[] values, int length) implements SampleArray {

    public FloatSamples {
        if (length <= 0 ? values.length != 0 : values.length % length != 0) {
            throw new IllegalArgumentException(values.length + " values are not whole samples of " + length);
        }
    }

    @Override
    public int size() {
        return length == 0 ? 0 : values.length / length;
    }

    @Override
    public void read(int sample, float[] out, int offset) {
        System.arraycopy(values, sample * length, out, offset, length);
    }

    @Override
    public SampleArray select(int[] indices) {
        float[] copy = new float[indices.length * length];
        for (int i = 0; i < indices.length; i++) {
            System.arraycopy(values, indices[i] * length, copy, i * length, length);
        }
        return new FloatSamples(copy, length);
    }
}
