package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zip64 archives (what np.savez writes past 4 GiB), built by hand at a small size: every size and offset in the
 * central directory is 0xFFFFFFFF and the real values sit in zip64 extra fields and the zip64 end record.
 */
class NpzZip64Test {

    @TempDir
    Path dir;

    @Test
    void storedAndDeflatedMembersWithZip64SizesRead() throws IOException {
        byte[] npy = Files.readAllBytes(NpyFixtures.file("f4_le_c.npy"));
        for (boolean deflate : new boolean[] {false, true}) {
            Path zip = Files.write(dir.resolve("zip64-" + deflate + ".npz"), zip64("x.npy", npy, deflate, false));
            try (NpzArchive npz = NpzArchive.open(zip, 1 << 20, 1 << 30, dir)) {
                assertThat(npz.names()).containsExactly("x");
                float[] out = new float[60];
                npz.array("x").readSamples(0, 4, out, 0);
                for (int c = 0; c < 60; c++) {
                    assertThat((double) out[c]).isEqualTo(NpyFixtures.expected('f', c));
                }
            }
        }
    }

    @Test
    void zip64RecordPointingOutsideTheFileIsRefused() throws IOException {
        byte[] npy = Files.readAllBytes(NpyFixtures.file("f4_le_c.npy"));
        Path zip = Files.write(dir.resolve("lying64.npz"), zip64("x.npy", npy, false, true));
        assertThatThrownBy(() -> NpzArchive.open(zip))
                .isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("lying64.npz")
                .hasMessageContaining("zip64 record offset");
    }

    /** One member, every 32-bit size and offset replaced by zip64 fields; {@code lie}: the locator points far away. */
    private static byte[] zip64(String name, byte[] content, boolean deflate, boolean lie) {
        byte[] data = content;
        if (deflate) {
            Deflater d = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
            d.setInput(content);
            d.finish();
            byte[] buf = new byte[content.length + 64];
            int n = d.deflate(buf);
            d.end();
            data = Arrays.copyOf(buf, n);
        }
        CRC32 crc = new CRC32();
        crc.update(content);
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(1024 + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x04034b50)
                .putShort((short) 45)
                .putShort((short) 0)
                .putShort((short) (deflate ? 8 : 0))
                .putInt(0)
                .putInt((int) crc.getValue())
                .putInt(-1)
                .putInt(-1)
                .putShort((short) nameBytes.length)
                .putShort((short) 20)
                .put(nameBytes)
                .putShort((short) 1)
                .putShort((short) 16)
                .putLong(content.length)
                .putLong(data.length)
                .put(data);
        int directoryAt = b.position();
        b.putInt(0x02014b50)
                .putShort((short) 45)
                .putShort((short) 45)
                .putShort((short) 0)
                .putShort((short) (deflate ? 8 : 0))
                .putInt(0)
                .putInt((int) crc.getValue())
                .putInt(-1)
                .putInt(-1)
                .putShort((short) nameBytes.length)
                .putShort((short) 28)
                .putShort((short) 0)
                .putShort((short) 0)
                .putShort((short) 0)
                .putInt(0)
                .putInt(-1)
                .put(nameBytes)
                .putShort((short) 1)
                .putShort((short) 24)
                .putLong(content.length)
                .putLong(data.length)
                .putLong(0);
        int directorySize = b.position() - directoryAt;
        int zip64At = b.position();
        b.putInt(0x06064b50)
                .putLong(44)
                .putShort((short) 45)
                .putShort((short) 45)
                .putInt(0)
                .putInt(0)
                .putLong(1)
                .putLong(1)
                .putLong(directorySize)
                .putLong(directoryAt);
        b.putInt(0x07064b50).putInt(0).putLong(lie ? 1L << 40 : zip64At).putInt(1);
        b.putInt(0x06054b50)
                .putShort((short) 0)
                .putShort((short) 0)
                .putShort((short) -1)
                .putShort((short) -1)
                .putInt(-1)
                .putInt(-1)
                .putShort((short) 0);
        return Arrays.copyOf(b.array(), b.position());
    }
}
