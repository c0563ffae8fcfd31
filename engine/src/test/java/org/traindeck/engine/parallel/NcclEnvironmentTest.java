package org.traindeck.engine.parallel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.config.NcclConfig;

/**
 * A variable set before ND4J loaded is in effect for every later run with the same value (the app loads ND4J for a
 * model's summary before its first run); a value changed after the load needs a restart.
 */
class NcclEnvironmentTest {

    private static NcclConfig custom(String name, String value) {
        return new NcclConfig(Map.of(), Map.of(name, value));
    }

    @Test
    void aValueSetBeforeTheLoadStaysAppliedAndAChangedOneNeedsARestart() {
        String name = "TRAINDECK_TEST_NCCL_" + System.nanoTime();

        NcclReport before = NcclEnvironment.apply(custom(name, "1"), false);
        NcclReport sameAfter = NcclEnvironment.apply(custom(name, "1"), true);
        NcclReport changedAfter = NcclEnvironment.apply(custom(name, "2"), true);

        assertThat(before.get(name).status()).isEqualTo(NcclReport.Status.APPLIED);
        assertThat(sameAfter.get(name).status()).isEqualTo(NcclReport.Status.APPLIED);
        assertThat(changedAfter.get(name).status()).isEqualTo(NcclReport.Status.NEEDS_RESTART);
        assertThat(NcclEnvironment.apply(custom(name + "_NEVER_BEFORE", "1"), true)
                        .get(name + "_NEVER_BEFORE")
                        .status())
                .isEqualTo(NcclReport.Status.NEEDS_RESTART);
    }
}
