package org.traindeck.engine.data;

/**
 * An input derived from a diffusion source's clean samples: each target average-pooled by {@code factor}, and
 * upsampled back to the target's size when {@code upsample} (see {@link Downsampling}). Computed when read, so it
 * follows the targets' splits and needs no memory of its own.
 */
record DerivedSamples(SampleArray targets, SampleShape target, int factor, boolean upsample) implements SampleArray {

    /** The derived input's shape. */
    SampleShape shape() {
        return upsample ? target : Downsampling.pooled(target, factor);
    }

    @Override
    public int size() {
        return targets.size();
    }

    @Override
    public int length() {
        return shape().values();
    }

    @Override
    public void read(int sample, float[] out, int offset) {
        float[] full = new float[target.values()];
        targets.read(sample, full, 0);
        if (!upsample) {
            Downsampling.pool(full, target, factor, out, offset);
            return;
        }
        float[] low = new float[Downsampling.pooled(target, factor).values()];
        Downsampling.pool(full, target, factor, low, 0);
        Downsampling.upsample(low, 0, target, factor, out, offset);
    }

    @Override
    public SampleArray select(int[] indices) {
        return new DerivedSamples(targets.select(indices), target, factor, upsample);
    }
}
