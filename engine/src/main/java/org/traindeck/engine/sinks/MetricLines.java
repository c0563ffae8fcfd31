package org.traindeck.engine.sinks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A metric file's complete lines, one at a time, in memory bounded by the longest line, however large the file. A
 * last line without its newline (cut by a crash, perhaps inside a character) is not data and is not handed on; nor
 * is a line longer than {@link #MAX_LINE} (no metric line comes near it).
 */
final class MetricLines {

    static final int MAX_LINE = 1 << 20;

    /** Hears each line as bytes, without its newline; the array is reused once the call returns. */
    @FunctionalInterface
    interface LineConsumer {
        void line(byte[] bytes, int offset, int length) throws IOException;
    }

    private MetricLines() {}

    static void forEach(Path file, LineConsumer consumer) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 16];
            byte[] carried = new byte[1024];
            int carriedLength = 0;
            boolean tooLong = false;
            int n;
            while ((n = in.read(buffer)) > 0) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] != '\n') {
                        continue;
                    }
                    if (tooLong) {
                        tooLong = false;
                    } else if (carriedLength == 0) {
                        consumer.line(buffer, start, i - start);
                    } else if (carriedLength + i - start <= MAX_LINE) {
                        carried = append(carried, carriedLength, buffer, start, i - start);
                        consumer.line(carried, 0, carriedLength + i - start);
                    }
                    carriedLength = 0;
                    start = i + 1;
                }
                if (!tooLong && start < n) {
                    if (carriedLength + n - start > MAX_LINE) {
                        tooLong = true;
                        carriedLength = 0;
                    } else {
                        carried = append(carried, carriedLength, buffer, start, n - start);
                        carriedLength += n - start;
                    }
                }
            }
        }
    }

    /** A line's text, decoded leniently: a crash or a foreign tool may have left bytes that are not UTF-8. */
    static String decode(byte[] bytes, int offset, int length) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .decode(ByteBuffer.wrap(bytes, offset, length))
                    .toString();
        } catch (java.nio.charset.CharacterCodingException impossible) {
            throw new IllegalStateException(impossible); // REPLACE never throws
        }
    }

    private static byte[] append(byte[] to, int length, byte[] from, int offset, int count) {
        byte[] target = length + count <= to.length ? to : Arrays.copyOf(to, Math.max(to.length * 2, length + count));
        System.arraycopy(from, offset, target, length, count);
        return target;
    }
}
