package org.traindeck.engine.data;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A cascade's low-resolution view, worked out by hand: each pooled value is the mean of its cell, on every channel of
 * an image and of a volume; upsampling repeats it over the cell; a factor that does not divide a side, or a sample
 * that is not a picture, is said why.
 */
class DownsamplingTest {

    @Test
    void anImagePoolsEachChannelsCellsAndUpsamplesByRepeatingThem() {
        SampleShape image = new SampleShape.Image(2, 2, 4);
        // channel 0: rows 1 2 3 4 / 5 6 7 8; channel 1: ten times as much
        float[] sample = {1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 30, 40, 50, 60, 70, 80};
        float[] pooled = new float[4];
        Downsampling.pool(sample, image, 2, pooled, 0);

        assertThat(Downsampling.pooled(image, 2)).isEqualTo(new SampleShape.Image(2, 1, 2));
        assertThat(pooled).containsExactly(3.5f, 5.5f, 35f, 55f);

        float[] up = new float[16];
        Downsampling.upsample(pooled, 0, image, 2, up, 0);
        assertThat(up).containsExactly(3.5f, 3.5f, 5.5f, 5.5f, 3.5f, 3.5f, 5.5f, 5.5f, 35, 35, 55, 55, 35, 35, 55, 55);
    }

    @Test
    void aVolumePoolsOverDepthHeightAndWidth() {
        SampleShape volume = new SampleShape.Volume(1, 2, 2, 2);
        float[] sample = {1, 2, 3, 4, 5, 6, 7, 8};
        float[] pooled = new float[1];
        Downsampling.pool(sample, volume, 2, pooled, 0);

        assertThat(pooled).containsExactly(4.5f);
        float[] up = new float[8];
        Downsampling.upsample(pooled, 0, volume, 2, up, 0);
        assertThat(up).containsOnly(4.5f);
    }

    @Test
    void aMisfitSaysWhy() {
        assertThat(Downsampling.misfit(new SampleShape.Image(1, 6, 6), 4)).contains("does not divide", "6×6×1");
        assertThat(Downsampling.misfit(new SampleShape.Flat(8), 2)).contains("images", "volumes");
        assertThat(Downsampling.misfit(new SampleShape.Image(1, 6, 6), 3)).isNull();
    }
}
