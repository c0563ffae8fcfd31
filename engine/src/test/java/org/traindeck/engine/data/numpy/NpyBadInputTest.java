package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damaged and hostile files: each refused with a message naming the file and, where it applies, the byte offset. */
class NpyBadInputTest {

    private static NpyFormatException refusal(String name) {
        return catchThrowableOfType(() -> NpyArray.open(NpyFixtures.file(name)).close(), NpyFormatException.class);
    }

    @Test
    void truncatedDataIsRefusedWithBothSizes() {
        NpyFormatException e = refusal("truncated.npy");
        // 4*3*5 float32 = 240 bytes of data after a 128-byte header; 7 bytes were cut
        assertThat(e)
                .hasMessageContaining("truncated.npy")
                .hasMessageContaining("240 bytes of data")
                .hasMessageContaining("only 233 bytes")
                .hasMessageContaining("at byte offset 128");
        assertThat(e.offset()).isEqualTo(128);
    }

    @Test
    void truncatedHeaderIsRefused() {
        assertThat(refusal("truncated_header.npy"))
                .hasMessageContaining("truncated_header.npy")
                .hasMessageContaining("truncated");
    }

    @Test
    void headerClaimingMoreThanTheFileHoldsIsRefused() {
        assertThat(refusal("claims_more.npy"))
                .hasMessageContaining("claims_more.npy")
                .hasMessageContaining("12000 bytes of data")
                .hasMessageContaining("only 240 bytes");
    }

    @Test
    void trailingBytesAreRefused() {
        assertThat(refusal("trailing.npy"))
                .hasMessageContaining("trailing.npy")
                .hasMessageContaining("4 more bytes")
                .hasMessageContaining("at byte offset 368");
    }

    @Test
    void badMagicIsRefused() {
        assertThat(refusal("bad_magic.npy"))
                .hasMessageContaining("bad_magic.npy")
                .hasMessageContaining("not an .npy file")
                .hasMessageContaining("at byte offset 0");
    }

    @Test
    void unknownVersionIsRefused() {
        assertThat(refusal("version_9.npy"))
                .hasMessageContaining("version_9.npy")
                .hasMessageContaining("unsupported .npy format version 9.0")
                .hasMessageContaining("at byte offset 6");
    }

    @Test
    void codeInTheHeaderIsRefusedNotEvaluated() {
        // the parser stops at the first character that is not a literal: offset of '_' in __import__
        NpyFormatException e = refusal("garbage_dict.npy");
        assertThat(e)
                .hasMessageContaining("garbage_dict.npy")
                .hasMessageContaining("unexpected character '_'")
                .hasMessageContaining("nothing is evaluated");
        assertThat(e.offset()).isEqualTo(10 + "{'descr': '<f4', 'fortran_order': ".length());
    }

    @Test
    void shapeOverflowAndNegativeSizesAreRefused() {
        assertThat(refusal("shape_overflow.npy"))
                .hasMessageContaining("shape_overflow.npy")
                .hasMessageContaining("more elements than a long can count");
        assertThat(refusal("shape_negative.npy"))
                .hasMessageContaining("shape_negative.npy")
                .hasMessageContaining("-1 where a size of 0 or more belongs");
    }

    @Test
    void missingKeyIsRefused() {
        assertThat(refusal("missing_key.npy")).hasMessageContaining("has no 'fortran_order'");
    }

    @Test
    void structuredStringAndComplexArraysAreRefusedWithAdvice() {
        assertThat(refusal("structured.npy"))
                .hasMessageContaining("structured arrays")
                .hasMessageContaining("astype(np.float32)");
        assertThat(refusal("strings.npy")).hasMessageContaining("unsupported dtype '<U2'");
        assertThat(refusal("complex.npy")).hasMessageContaining("unsupported dtype '<c8'");
    }

    @Test
    void objectArrayIsRefusedFromTheHeaderAlone() {
        NpyFormatException full = refusal("object.npy");
        assertThat(full)
                .hasMessageContaining("object.npy")
                .hasMessageContaining("object array")
                .hasMessageContaining("pickle")
                .hasMessageContaining("never read")
                .hasMessageContaining("np.save(path, arr.astype(np.float32))");
        // the same file cut right after its header is refused the same way: the payload is never needed, never read
        NpyFormatException headerOnly = refusal("object_header_only.npy");
        assertThat(headerOnly.getMessage().replace("object_header_only.npy", "object.npy"))
                .isEqualTo(full.getMessage());
    }

    @Test
    void emptyAndTinyFilesAreRefused(@TempDir Path dir) throws IOException {
        Path empty = Files.write(dir.resolve("empty.npy"), new byte[0]);
        assertThatThrownBy(() -> NpyArray.open(empty))
                .isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("empty.npy")
                .hasMessageContaining("too short");
    }

    @Test
    void headerLengthPastTheEndIsRefused(@TempDir Path dir) throws IOException {
        byte[] head = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, (byte) 0xff, (byte) 0xff, 0, 0, '{'};
        Path f = Files.write(dir.resolve("long_header.npy"), head);
        assertThatThrownBy(() -> NpyArray.open(f))
                .isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("long_header.npy")
                .hasMessageContaining("65535 bytes long");
        head[10] = 0x7f; // a 2 GB header
        Files.write(f, head);
        assertThatThrownBy(() -> NpyArray.open(f))
                .isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("over the limit");
    }
}
