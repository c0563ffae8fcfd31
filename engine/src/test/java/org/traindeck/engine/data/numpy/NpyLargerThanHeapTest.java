package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ~300 MB float32 file read in full by a child JVM limited to a 64 MB heap: the mapping, not the heap, holds the data.
 * The child maps in windows of an odd size, so samples straddle window boundaries all through the file.
 */
class NpyLargerThanHeapTest {

    private static final int SAMPLES = 300_000;
    private static final int LENGTH = 256;

    @TempDir
    Path dir;

    private Path npy;

    @AfterEach
    void removeTheBigFile() throws IOException {
        if (npy != null) {
            Files.deleteIfExists(npy);
        }
    }

    @Test
    void childWithSmallHeapReadsEverySampleOfALargerFile() throws IOException, InterruptedException {
        npy = dir.resolve("large.npy");
        long expected = write(npy);
        assertThat(Files.size(npy)).isGreaterThan(300_000_000L);

        Path log = dir.resolve("child.log");
        long window = (48L << 20) + 4; // a whole number of floats, but never of 256-float samples
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m",
                "-cp",
                System.getProperty("java.class.path"),
                NpyChecksumMain.class.getName(),
                npy.toString(),
                Long.toString(window),
                "1000");
        Process child = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        // a bound for a hung child, not a timing assumption: the read takes seconds even on a loaded machine
        boolean exited = child.waitFor(10, TimeUnit.MINUTES);
        if (!exited) {
            child.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(exited).as("child finished; output: %s", output).isTrue();
        assertThat(child.exitValue()).as("child exit; output: %s", output).isZero();
        assertThat(output).contains("values " + (long) SAMPLES * LENGTH + " checksum " + expected + " ");
        long childHeap = Long.parseLong(
                output.substring(output.indexOf("maxMemory ") + 10).trim());
        assertThat(childHeap).isLessThan(Files.size(npy) / 4);
    }

    /** Streams the file out in 1 MB chunks; returns the checksum NpyChecksumMain prints for it. */
    private static long write(Path file) throws IOException {
        String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + SAMPLES + ", " + LENGTH + "), }";
        int padded = (dict.length() + 1 + 10 + 63) / 64 * 64 - 10;
        String header = dict + " ".repeat(padded - dict.length() - 1) + "\n";
        ByteBuffer buf = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
        buf.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0})
                .putShort((short) header.length())
                .put(header.getBytes(StandardCharsets.ISO_8859_1));
        long checksum = 0;
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long total = (long) SAMPLES * LENGTH;
            for (long c = 0; c < total; c++) {
                float v = (float) (c % 1_000_003) - 500_000f;
                checksum = checksum * 31 + Float.floatToRawIntBits(v);
                buf.putFloat(v);
                if (!buf.hasRemaining()) {
                    flush(out, buf);
                }
            }
            flush(out, buf);
        }
        return checksum;
    }

    private static void flush(FileChannel out, ByteBuffer buf) throws IOException {
        buf.flip();
        while (buf.hasRemaining()) {
            out.write(buf);
        }
        buf.clear();
    }
}
