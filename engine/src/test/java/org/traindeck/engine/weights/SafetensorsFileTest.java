package org.traindeck.engine.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A safetensors file is data only: every header that lies about the data is refused with the file and the byte
 * offset, before a value is read; the float types PyTorch writes are read as float32, and other types are listed but
 * never taken as weights.
 */
class SafetensorsFileTest {

    @TempDir
    Path dir;

    private Path file(String header, byte[] data) throws Exception {
        return file(header.getBytes(StandardCharsets.UTF_8).length, header, data);
    }

    private Path file(long declared, String header, byte[] data) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(declared)
                .array());
        out.write(header.getBytes(StandardCharsets.UTF_8));
        out.write(data);
        Path f = dir.resolve("w.safetensors");
        Files.write(f, out.toByteArray());
        return f;
    }

    private static byte[] floats(float... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putFloat(v);
        }
        return b.array();
    }

    @Test
    void readsFloat32Float16BFloat16AndFloat64AndListsIntegers() throws Exception {
        ByteBuffer data = ByteBuffer.allocate(8 + 4 + 4 + 16 + 8).order(ByteOrder.LITTLE_ENDIAN);
        data.putFloat(1.5f).putFloat(-2f); // F32 [2]
        data.putShort((short) 0x3C00).putShort((short) 0xC000); // F16 1, -2
        data.putShort((short) 0x3FC0).putShort((short) 0x4040); // BF16 1.5, 3
        data.putDouble(0.25).putDouble(-8); // F64 [2]
        data.putLong(7); // I64 scalar (BatchNorm's num_batches_tracked)
        String header = "{\"__metadata__\": {\"format\": \"pt\"},"
                + "\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
                + "\"b\": {\"dtype\": \"F16\", \"shape\": [2, 1], \"data_offsets\": [8, 12]},"
                + "\"c\": {\"dtype\": \"BF16\", \"shape\": [2], \"data_offsets\": [12, 16]},"
                + "\"d\": {\"dtype\": \"F64\", \"shape\": [2], \"data_offsets\": [16, 32]},"
                + "\"n\": {\"dtype\": \"I64\", \"shape\": [], \"data_offsets\": [32, 40]}}";
        try (SafetensorsFile f = SafetensorsFile.open(file(header, data.array()))) {
            assertThat(f.entries()).containsOnlyKeys("a", "b", "c", "d", "n");
            assertThat(f.metadata()).containsEntry("format", "pt");
            assertThat(f.read("a")).containsExactly(1.5f, -2f);
            assertThat(f.read("b")).containsExactly(1f, -2f);
            assertThat(f.entries().get("b").shape()).containsExactly(2, 1);
            assertThat(f.read("c")).containsExactly(1.5f, 3f);
            assertThat(f.read("d")).containsExactly(0.25f, -8f);
            assertThat(f.entries().get("n").floating()).isFalse();
            assertThatThrownBy(() -> f.read("n")).hasMessageContaining("tensor 'n' is I64");
        }
    }

    @Test
    void aHugeHeaderLengthIsRefusedBeforeAnythingIsAllocated() throws Exception {
        Path f = file(1L << 40, "{}", new byte[0]);
        assertThatThrownBy(() -> SafetensorsFile.open(f))
                .isInstanceOf(WeightsException.class)
                .hasMessageStartingWith(f + ": byte 0: declares a header of 1099511627776 bytes");
        Path negative = file(-5, "{}", new byte[0]);
        assertThatThrownBy(() -> SafetensorsFile.open(negative)).hasMessageContaining("byte 0: declares a header of");
    }

    @Test
    void aHeaderThatIsNotJsonIsRefusedAtItsByte() throws Exception {
        Path f = file("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},  x}", floats(1));
        assertThatThrownBy(() -> SafetensorsFile.open(f))
                .hasMessageStartingWith(f + ": byte 7")
                .hasMessageContaining("its header is not JSON");
    }

    @Test
    void overlappingTensorsAreRefused() throws Exception {
        Path f = file(
                "{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
                        + "\"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [4, 12]}}",
                floats(1, 2, 3));
        assertThatThrownBy(() -> SafetensorsFile.open(f)).hasMessageContaining("tensors 'a' and 'b' overlap");
    }

    @Test
    void bytesThatBelongToNoTensorAreRefused() throws Exception {
        Path f = file("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}", floats(1, 2));
        assertThatThrownBy(() -> SafetensorsFile.open(f))
                .hasMessageContaining("bytes 0 to 4 of the data belong to no tensor");
    }

    @Test
    void aShapeThatDisagreesWithItsBytesIsRefused() throws Exception {
        Path f = file("{\"a\": {\"dtype\": \"F32\", \"shape\": [3, 1000000], \"data_offsets\": [0, 8]}}", floats(1, 2));
        assertThatThrownBy(() -> SafetensorsFile.open(f))
                .hasMessageContaining(
                        "tensor 'a' is F32 of shape [3,1000000] (12000000 bytes), but its data_offsets [0,8] hold 8 bytes");
    }

    @Test
    void offsetsBeyondTheFileAreRefused() throws Exception {
        Path f = file("{\"a\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16]}}", floats(1));
        assertThatThrownBy(() -> SafetensorsFile.open(f))
                .hasMessageContaining("lie outside the file's 4 bytes of data");
    }

    @Test
    void twoTensorsOfOneNameAreRefused() throws Exception {
        Path f = file(
                "{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},"
                        + "\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}",
                floats(1, 2));
        assertThatThrownBy(() -> SafetensorsFile.open(f)).hasMessageContaining("Duplicate field 'a'");
    }

    @Test
    void anUnknownTypeOrAnExtraFieldIsRefused() throws Exception {
        Path f = file("{\"a\": {\"dtype\": \"F8\", \"shape\": [1], \"data_offsets\": [0, 1]}}", new byte[1]);
        assertThatThrownBy(() -> SafetensorsFile.open(f)).hasMessageContaining("unknown dtype \"F8\"");
        Path g = file(
                "{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4], \"code\": \"rm -rf\"}}",
                floats(1));
        assertThatThrownBy(() -> SafetensorsFile.open(g)).hasMessageContaining("and nothing else");
    }
}
