package org.traindeck.engine.train.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ValueErrorsTest {

    @Test
    void meanSquareAndAbsoluteErrorAndPsnrOverTheTargetsRange() {
        ValueErrors errors = new ValueErrors();
        errors.add(1f, 0f); // error 1
        errors.add(1f, 3f); // error -2
        errors.add(4f, 4f); // error 0

        assertThat(errors.mse()).isCloseTo(5.0 / 3, within(1e-12));
        assertThat(errors.mae()).isCloseTo(1.0, within(1e-12));
        // targets from 0 to 4: a peak of 4
        assertThat(errors.psnr()).isCloseTo(10 * Math.log10(16 / (5.0 / 3)), within(1e-9));
    }

    @Test
    void targetsOfOneValueHaveAPeakOfOne() {
        ValueErrors errors = new ValueErrors();
        errors.add(2.5f, 2f);
        errors.add(1.5f, 2f);

        assertThat(errors.psnr()).isCloseTo(10 * Math.log10(1 / 0.25), within(1e-9));
    }
}
