package org.traindeck.engine.model.fit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * JavaCPP's count alone missed ND4J's arrays outside workspaces: a 40 MB array added 16 bytes to it. The count is the
 * process's, so arrays an earlier test left to the garbage collector can be freed by ND4J's deallocator thread in the
 * middle of a measurement (in one full run 30.7 MB were, while the 40 MB array was made): the count is let settle
 * first, and a measurement that such a free disturbed is taken again.
 */
class NativeBytesTest {

    private static final long SIZE = 40_000_000L;

    @Test
    void aDetachedArrayIsCountedAtItsSize() {
        List<String> measured = new ArrayList<>();
        for (int attempt = 0; attempt < 5; attempt++) {
            settle();
            long before = NativeBytes.now();
            INDArray array = Nd4j.createUninitializedDetached(DataType.FLOAT, SIZE / 4);
            long with = NativeBytes.now();
            array.close();
            long after = NativeBytes.now();
            if (counted(with - before) && counted(with - after)) {
                return;
            }
            measured.add("+" + (with - before) + " / -" + (with - after));
        }
        assertThat(measured)
                .as("bytes added by the array and freed with it, each attempt")
                .isEmpty();
    }

    private static boolean counted(long bytes) {
        return bytes >= SIZE && bytes <= SIZE + 100_000;
    }

    /** Until the count holds still for a tenth of a second, after a collection has handed ND4J what it may free. */
    private static void settle() {
        System.gc();
        long[] last = {-1};
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    long now = NativeBytes.now();
                    boolean still = now == last[0];
                    last[0] = now;
                    return still;
                });
    }
}
