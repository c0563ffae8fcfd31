package org.traindeck.engine.train.samples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VolumeSlicesTest {

    /** A 2 (depth) × 3 (height) × 4 (width) volume whose every voxel holds its own flat index. */
    private static final float[] VOLUME = new float[24];

    static {
        for (int i = 0; i < VOLUME.length; i++) {
            VOLUME[i] = i;
        }
    }

    @Test
    void eachMiddleSliceGoesThroughTheCentreAlongItsAxis() {
        VolumeSlices.Plane axial = VolumeSlices.middle(VOLUME, 0, 1, 2, 3, 4, VolumeSlices.Axis.AXIAL);
        VolumeSlices.Plane coronal = VolumeSlices.middle(VOLUME, 0, 1, 2, 3, 4, VolumeSlices.Axis.CORONAL);
        VolumeSlices.Plane sagittal = VolumeSlices.middle(VOLUME, 0, 1, 2, 3, 4, VolumeSlices.Axis.SAGITTAL);

        assertThat(axial.rows()).isEqualTo(3);
        assertThat(axial.columns()).isEqualTo(4);
        assertThat(axial.values()).containsExactly(12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23);
        assertThat(coronal.rows()).isEqualTo(2);
        assertThat(coronal.columns()).isEqualTo(4);
        assertThat(coronal.values()).containsExactly(4, 5, 6, 7, 16, 17, 18, 19);
        assertThat(sagittal.rows()).isEqualTo(2);
        assertThat(sagittal.columns()).isEqualTo(3);
        assertThat(sagittal.values()).containsExactly(2, 6, 10, 14, 18, 22);
    }
}
