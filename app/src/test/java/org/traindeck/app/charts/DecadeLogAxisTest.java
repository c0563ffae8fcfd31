package org.traindeck.app.charts;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Log-scale ticks people can read: 1, 2, 5 × 10^n, whole decades over a wide range, never "10^0.4". */
class DecadeLogAxisTest {

    @Test
    void aFewDecadesGetOneTwoFiveTicks() {
        assertThat(DecadeLogAxis.ticks(0.015, 3.0)).containsExactly(0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0);
    }

    @Test
    void manyDecadesGetWholeDecadesAtMostEight() {
        assertThat(DecadeLogAxis.ticks(1e-4, 10)).containsExactly(1e-4, 1e-3, 0.01, 0.1, 1.0, 10.0);
        assertThat(DecadeLogAxis.ticks(1e-9, 10)).containsExactly(1e-9, 1e-7, 1e-5, 1e-3, 0.1, 10.0);
        assertThat(DecadeLogAxis.ticks(1e-12, 1e6)).hasSizeLessThanOrEqualTo(8).contains(1e-12, 1.0);
    }

    @Test
    void aNarrowRangeStillGetsRoundTicks() {
        assertThat(DecadeLogAxis.ticks(0.31, 0.45)).containsExactly(0.35, 0.4, 0.45);
        assertThat(DecadeLogAxis.ticks(0.3, 0.3)).isEmpty();
    }

    @Test
    void labelsArePlainWhereShortElseAnExponent() {
        assertThat(DecadeLogAxis.label(0.02)).isEqualTo("0.02");
        assertThat(DecadeLogAxis.label(1.0)).isEqualTo("1");
        assertThat(DecadeLogAxis.label(500)).isEqualTo("500");
        assertThat(DecadeLogAxis.label(2e-5)).isEqualTo("2e-5");
        assertThat(DecadeLogAxis.label(1e6)).isEqualTo("1e+6");
        assertThat(DecadeLogAxis.label(0.35)).isEqualTo("0.35");
    }

    @Test
    void linearAxesLabelTheirTicksTheSameWay() {
        TickFormat f = new TickFormat();
        assertThat(f.format(0.0005)).isEqualTo("0.0005");
        assertThat(f.format(0.0)).isEqualTo("0");
        assertThat(f.format(5e-5)).isEqualTo("5e-5");
        assertThat(f.format(2500)).isEqualTo("2500");
    }
}
