package org.traindeck.engine.model.kernels;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DropoutMasksTest {

    @Test
    void aSeedDrawsOneMaskOfZerosAndOneOverKeepAtAboutTheRate() {
        int n = 100_003;
        float[] a = new float[n];
        float[] b = new float[n];
        float[] other = new float[n];
        DropoutMasks.fill(a, n, 42L, 0.25);
        DropoutMasks.fill(b, n, 42L, 0.25);
        DropoutMasks.fill(other, n, 43L, 0.25);
        assertThat(b).isEqualTo(a);
        int dropped = 0;
        int differ = 0;
        for (int i = 0; i < n; i++) {
            assertThat(a[i]).isIn(0f, (float) (1 / 0.75));
            dropped += a[i] == 0 ? 1 : 0;
            differ += a[i] != other[i] ? 1 : 0;
        }
        // binomial: the standard deviation of the dropped share is 0.0014 here
        assertThat(dropped / (double) n).isBetween(0.24, 0.26);
        // two independent masks differ where exactly one drops: 2 p (1 - p) = 0.375
        assertThat(differ / (double) n).isBetween(0.36, 0.39);
    }

    @Test
    void neighbouringElementsAreUncorrelated() {
        int n = 200_000;
        float[] m = new float[n];
        DropoutMasks.fill(m, n, 7L, 0.5);
        int bothDropped = 0;
        for (int i = 1; i < n; i++) {
            bothDropped += m[i] == 0 && m[i - 1] == 0 ? 1 : 0;
        }
        assertThat(bothDropped / (double) (n - 1)).isBetween(0.24, 0.26);
    }
}
