package org.traindeck.engine.library.tfevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.library.tfevents.EventFixtures.Proto;
import org.traindeck.engine.sinks.TfEventEncoder;

/** The Event fields a scalar can come in, and records that are not events. */
class TfEventDecoderTest {

    private static TfEventDecoder.Decoded decode(Proto value) throws Exception {
        return TfEventDecoder.decode(new Proto()
                .fixed64(1, Double.doubleToLongBits(12.5))
                .varint(2, 7)
                .message(5, new Proto().message(1, value))
                .bytes());
    }

    private static Proto tensor(int dtype, byte[] content) {
        return new Proto()
                .string(1, "t")
                .message(8, new Proto().varint(1, dtype).bytes(4, content));
    }

    @Test
    void aResumedTrainDeckRunMarksItsRestartAsTensorBoardReadsIt() throws Exception {
        // SessionLog is the Event's field 7 (6 is the deprecated log_message): TensorBoard drops the points a restart
        // replaces only when it reads a START there
        TfEventDecoder.Decoded restart = TfEventDecoder.decode(TfEventEncoder.sessionStart(1_700_000_000.0, 25));

        assertThat(restart.sessionStart()).isTrue();
        // TensorBoard keeps the points before the START's step: step 25, the last one the resumed run keeps, stays
        assertThat(restart.step()).isEqualTo(26);
    }

    @Test
    void tensorContentOfEachNumericTypeIsOneScalar() throws Exception {
        assertThat(decode(tensor(2, EventFixtures.littleEndian(Double.doubleToLongBits(0.125), 8)))
                        .scalars())
                .containsExactly(new TfEventDecoder.Scalar("t", 0.125));
        assertThat(decode(tensor(3, EventFixtures.littleEndian(-3, 4)))
                        .scalars()
                        .get(0)
                        .value())
                .isEqualTo(-3);
        assertThat(decode(tensor(9, EventFixtures.littleEndian(1L << 40, 8)))
                        .scalars()
                        .get(0)
                        .value())
                .isEqualTo(1L << 40);
        // half precision 1.5 is 0x3e00
        assertThat(decode(tensor(19, EventFixtures.littleEndian(0x3e00, 2)))
                        .scalars()
                        .get(0)
                        .value())
                .isEqualTo(1.5);
        // a string tensor is text, not a scalar
        assertThat(decode(tensor(7, new byte[] {'h', 'i'})).scalars()).isEmpty();
    }

    @Test
    void typedValuesCountOnlyWhenThereIsOne() throws Exception {
        Proto one = new Proto()
                .string(1, "d")
                .message(8, new Proto().varint(1, 2).fixed64(6, Double.doubleToLongBits(2.5)));
        assertThat(decode(one).scalars()).containsExactly(new TfEventDecoder.Scalar("d", 2.5));
        Proto two =
                new Proto().string(1, "f").message(8, new Proto().varint(1, 1).packedFloat(5, 1f, 2f));
        assertThat(decode(two).scalars()).isEmpty();
        Proto ints =
                new Proto().string(1, "i").message(8, new Proto().varint(1, 3).varint(7, 42));
        assertThat(decode(ints).scalars()).containsExactly(new TfEventDecoder.Scalar("i", 42));
    }

    @Test
    void theEventsTimeStepAndUnknownFieldsAreRead() throws Exception {
        Proto value = new Proto()
                .string(1, "loss")
                .fixed32(2, Float.floatToIntBits(0.5f))
                .varint(15, 3);
        TfEventDecoder.Decoded d = decode(value);
        assertThat(d.wallTime()).isEqualTo(12.5);
        assertThat(d.step()).isEqualTo(7);
        assertThat(d.scalars()).containsExactly(new TfEventDecoder.Scalar("loss", 0.5));
    }

    @Test
    void bytesThatAreNotAnEventSayWhere() {
        // field 1 as a group (wire type 3): no event uses it
        assertThatThrownBy(() -> TfEventDecoder.decode(new byte[] {0x0b}))
                .isInstanceOf(ProtoInput.Malformed.class)
                .hasMessageContaining("wire type 3");
        // a varint that never ends
        byte[] endless = new byte[12];
        endless[0] = 0x10;
        Arrays.fill(endless, 1, 12, (byte) 0xff);
        assertThatThrownBy(() -> TfEventDecoder.decode(endless))
                .isInstanceOf(ProtoInput.Malformed.class)
                .hasMessageContaining("varint");
        assertThatThrownBy(() -> TfEventDecoder.decode(new byte[] {0x09, 1, 2}))
                .isInstanceOf(ProtoInput.Malformed.class)
                .hasMessageContaining("8-byte field");
    }

    @Test
    void halfPrecisionCoversItsSpecialValues() {
        assertThat(TensorScalar.halfToFloat(0x3c00)).isEqualTo(1f);
        assertThat(TensorScalar.halfToFloat(0xc000)).isEqualTo(-2f);
        assertThat(TensorScalar.halfToFloat(0x0001)).isEqualTo(5.9604645e-8f);
        assertThat(TensorScalar.halfToFloat(0x7c00)).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(TensorScalar.halfToFloat(0x7e00)).isNaN();
    }
}
