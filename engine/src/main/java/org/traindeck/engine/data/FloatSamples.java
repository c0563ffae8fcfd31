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

    /** The samples of {@code from} at {@code picked} copied into memory, or as many samples of zeros when {@code zeros}. */
    static FloatSamples copyOf(SampleArray from, int[] picked, boolean zeros) {
        int d = from.length();
        float[] values = new float[picked.length * d];
        for (int i = 0; !zeros && i < picked.length; i++) {
            from.read(picked[i], values, i * d);
        }
        return new FloatSamples(values, d);
    }
}
