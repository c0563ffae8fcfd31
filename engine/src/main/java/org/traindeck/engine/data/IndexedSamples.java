package org.traindeck.engine.data;

/** Some samples of another array, in a given order, without copying them (a split of a memory-mapped file). */
record IndexedSamples(SampleArray base, int[] index) implements SampleArray {

    @Override
    public int size() {
        return index.length;
    }

    @Override
    public int length() {
        return base.length();
    }

    @Override
    public void read(int sample, float[] out, int offset) {
        base.read(index[sample], out, offset);
    }

    @Override
    public SampleArray select(int[] indices) {
        int[] composed = new int[indices.length];
        for (int i = 0; i < indices.length; i++) {
            composed[i] = index[indices[i]];
        }
        return new IndexedSamples(base, composed);
    }
}
