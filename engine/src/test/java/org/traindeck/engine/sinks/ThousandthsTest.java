package org.traindeck.engine.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ThousandthsTest {

    @Test
    void writesWhatBigDecimalWithThreePlacesWrites() {
        long[] edges = {
            0,
            1,
            9,
            10,
            99,
            100,
            999,
            1000,
            1001,
            1010,
            1100,
            12_345,
            1_764_460_800_123L,
            -1,
            -9,
            -10,
            -999,
            -1000,
            -1001,
            -12_345,
            Long.MAX_VALUE,
            Long.MIN_VALUE,
            Long.MIN_VALUE + 1
        };
        for (long x : edges) {
            assertThat(Thousandths.of(x))
                    .as("%d", x)
                    .isEqualTo(BigDecimal.valueOf(x, 3).toString());
        }
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            long x = r.nextLong() >> r.nextInt(64);
            assertThat(Thousandths.of(x))
                    .as("%d", x)
                    .isEqualTo(BigDecimal.valueOf(x, 3).toPlainString());
        }
    }

    @Test
    void appendsAfterWhatTheRowHolds() {
        StringBuilder row = new StringBuilder("a,");
        Thousandths.append(row, 5).append(',');
        assertThat(row).hasToString("a,0.005,");
    }
}
