package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Header dicts written by other tools (or attackers) than today's NumPy: what is accepted, what is refused and where. */
class NpyHeaderVariantsTest {

    @TempDir
    Path dir;

    /** An .npy of {@code values} float32 zeros under the given dict text. */
    private Path npy(String dict, int values) throws IOException {
        byte[] text = (dict + "\n").getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer b = ByteBuffer.allocate(10 + text.length + 4 * values).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0})
                .putShort((short) text.length)
                .put(text);
        return Files.write(dir.resolve("h.npy"), b.array());
    }

    @Test
    void otherWritersHeadersAreRead() throws IOException {
        // double quotes, another key order, no trailing comma, Python 2 longs, spaces inside the tuple
        try (NpyArray a =
                NpyArray.open(npy("{\"shape\": ( 2L , 3L ), \"fortran_order\": False, \"descr\": \"<f4\"}", 6))) {
            assertThat(a.shape()).containsExactly(2, 3);
        }
        try (NpyArray a = NpyArray.open(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (7,), }", 7))) {
            assertThat(a.sampleCount()).isEqualTo(7);
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiterString = " # ",
            quoteCharacter = '"',
            value = {
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'descr': '<f4'} # names 'descr' twice # 66",
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1} # unexpected key 'x' # 10",
                "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)} # 'fortran_order' is 0 # 10",
                "{'descr': '<f4', 'fortran_order': False, 'shape': 2} # not a tuple of integers # 10",
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 'a')} # has a where a size # 10",
                "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)} # integer in the header is too large # 61",
                "{'descr': '<f4, 'fortran_order': False, 'shape': (2,)} # expected ',' or '}' after the value of 'descr' # 27",
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x # unexpected text after the header dict # 66",
                "{'descr': 'f4', 'fortran_order': False, 'shape': (2,)} # unsupported dtype 'f4' # 10",
                "{'descr': '|f4', 'fortran_order': False, 'shape': (2,)} # no byte order # 10",
                "{'descr': '<f4', 'fortran_order': False, 'shape': ((((((((((((((((((2,)))))))))))))))))),} # nested deeper # 76",
                "{'descr': '<f\\4', 'fortran_order': False, 'shape': (2,)} # escapes # 23",
                "[1, 2] # expected '{' # 10",
                "\"\" # expected '{' but the header ends # 11",
            })
    void badDictsAreRefusedAtTheRightByte(String dict, String message, long offset) throws IOException {
        Path f = npy(dict == null ? "" : dict, 2);
        assertThatThrownBy(() -> NpyArray.open(f))
                .isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("h.npy")
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((NpyFormatException) e).offset()).isEqualTo(offset));
    }
}
