package org.traindeck.engine.devices.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The trapezoid rule over power samples, with pauses left out rather than guessed. */
class PowerIntegralTest {

    @Test
    void aSteadyHundredWattsForThirtySixSecondsIsOneWattHour() {
        PowerIntegral p = new PowerIntegral(5000);
        for (int s = 0; s <= 36; s++) {
            p.add(1_000_000 + s * 1000L, 100.0);
        }
        assertThat(p.wattHours()).isCloseTo(1.0, within(1e-9));
        assertThat(p.coveredMillis()).isEqualTo(36_000);
        assertThat(p.gapMillis()).isZero();
    }

    @Test
    void aRampIsIntegratedByItsMeanAndAPauseIsLeftOut() {
        PowerIntegral p = new PowerIntegral(5000);
        p.add(0, 100);
        p.add(1000, 200); // 150 J
        p.add(61_000, 200); // nvidia-smi was away for a minute: not bridged
        p.add(62_000, 300); // 250 J
        p.add(61_500, 999); // out of order: ignored
        p.add(63_000, Double.NaN); // not a reading
        assertThat(p.wattHours() * 3600).isCloseTo(400, within(1e-9));
        assertThat(p.gapMillis()).isEqualTo(60_000);
        assertThat(p.coveredMillis()).isEqualTo(2000);
        assertThat(p.samples()).isEqualTo(4);
    }
}
