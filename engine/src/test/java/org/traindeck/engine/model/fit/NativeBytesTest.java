package org.traindeck.engine.model.fit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** JavaCPP's count alone missed ND4J's arrays outside workspaces: a 40 MB array added 16 bytes to it. */
class NativeBytesTest {

    @Test
    void aDetachedArrayIsCountedAtItsSize() {
        long before = NativeBytes.now();
        INDArray array = Nd4j.createUninitializedDetached(DataType.FLOAT, 10_000_000);
        long with = NativeBytes.now();
        array.close();
        long after = NativeBytes.now();

        assertThat(with - before).isBetween(40_000_000L, 40_100_000L);
        assertThat(with - after).isBetween(40_000_000L, 40_100_000L);
    }
}
