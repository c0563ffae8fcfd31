package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** np.savez and np.savez_compressed archives, and the zip bombs and lies an .npz can carry. */
class NpzArchiveTest {

    @TempDir
    Path temp;

    @ParameterizedTest
    @ValueSource(strings = {"arrays.npz", "arrays_compressed.npz"})
    void readsEveryMemberByName(String name) throws IOException {
        for (long window : new long[] {NpyArray.DEFAULT_WINDOW_BYTES, 20}) {
            try (NpzArchive npz = NpzArchive.open(NpyFixtures.file(name), 1 << 20, window, temp)) {
                assertThat(npz.names()).containsExactly("x", "y", "xf");
                for (String member : new String[] {"x", "xf"}) {
                    NpyArray x = npz.array(member);
                    assertThat(x.shape()).containsExactly(6, 2, 3);
                    assertThat(x.header().fortranOrder()).isEqualTo(member.equals("xf"));
                    assertThat(x.source()).endsWith(name + " member " + member + ".npy");
                    float[] out = new float[36];
                    x.readSamples(0, 6, out, 0);
                    for (int c = 0; c < 36; c++) {
                        assertThat((double) out[c]).isEqualTo(NpyFixtures.expected('f', c));
                    }
                }
                NpyArray y = npz.array("y");
                assertThat(y.dtype()).isEqualTo(NpyDType.INT64);
                long[] labels = new long[6];
                y.readSamplesLongs(0, 6, labels, 0);
                for (int i = 0; i < 6; i++) {
                    assertThat(labels[i]).isEqualTo((long) NpyFixtures.expected('i', i));
                }
                assertThat(npz.array("y")).isSameAs(y);
                assertThatThrownBy(() -> npz.array("z"))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("no array named 'z'")
                        .hasMessageContaining("[x, y, xf]");
            }
        }
    }

    @Test
    void deflatedMembersAreInflatedIntoTheCacheAndStayThereAfterClose() throws IOException {
        NpzArchive npz = NpzArchive.open(NpyFixtures.file("arrays_compressed.npz"), 1 << 20, 1 << 30, temp);
        npz.array("x");
        npz.array("y");
        assertThat(cacheFiles()).isEqualTo(2);
        npz.close();
        assertThat(cacheFiles()).as("kept for the next run").isEqualTo(2);
        assertThatThrownBy(() -> npz.array("x")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void honestButHugeMemberIsStoppedByTheCallersCap() throws IOException {
        try (NpzArchive npz = NpzArchive.open(NpyFixtures.file("bomb_large.npz"), 64L << 20, 1 << 30, temp)) {
            assertThatThrownBy(() -> npz.array("x"))
                    .isInstanceOf(NpyFormatException.class)
                    .hasMessageContaining("bomb_large.npz")
                    .hasMessageContaining("x.npy")
                    .hasMessageContaining("declares 104857728 bytes")
                    .hasMessageContaining("limit of 67108864");
        }
        assertThat(cacheFiles()).isZero();
        // under a cap that allows it, the same member inflates fine: 100 MiB of zeros
        try (NpzArchive npz = NpzArchive.open(NpyFixtures.file("bomb_large.npz"), 200L << 20, 1 << 30, temp)) {
            NpyArray x = npz.array("x");
            assertThat(x.shape()).containsExactly(25L << 20);
            assertThat(x.firstNonFinite()).isNull();
        }
        assertThat(cacheFiles()).as("the member, complete; no part file").isEqualTo(1);
    }

    @Test
    void declaredSizeAbsurdForItsCompressedSizeIsRefused() throws IOException {
        try (NpzArchive npz = NpzArchive.open(NpyFixtures.file("bomb_declared.npz"), Long.MAX_VALUE, 1 << 30, temp)) {
            assertThatThrownBy(() -> npz.array("x"))
                    .isInstanceOf(NpyFormatException.class)
                    .hasMessageContaining("bomb_declared.npz")
                    .hasMessageContaining("declares 4294967280 bytes")
                    .hasMessageContaining("zip bomb");
        }
        assertThat(cacheFiles()).isZero();
    }

    @Test
    void memberInflatingBeyondItsDeclaredSizeIsStopped() throws IOException {
        try (NpzArchive npz = NpzArchive.open(NpyFixtures.file("bomb_understated.npz"), 1 << 20, 1 << 30, temp)) {
            assertThatThrownBy(() -> npz.array("x"))
                    .isInstanceOf(NpyFormatException.class)
                    .hasMessageContaining("bomb_understated.npz")
                    .hasMessageContaining("inflates beyond its declared size of 20000 bytes");
        }
        assertThat(cacheFiles()).isZero();
    }

    @Test
    void localHeaderOffsetOutsideTheFileIsRefused() {
        assertThatThrownBy(() -> NpzArchive.open(NpyFixtures.file("bad_offset.npz")))
                .isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("bad_offset.npz")
                .hasMessageContaining("local header offset 1000000")
                .hasMessageContaining("at byte offset 1000000");
    }

    @Test
    void truncatedNpyInsideAStoredMemberIsRefused() throws IOException {
        try (NpzArchive npz = NpzArchive.open(NpyFixtures.file("truncated_member.npz"))) {
            assertThatThrownBy(() -> npz.array("x"))
                    .isInstanceOf(NpyFormatException.class)
                    .hasMessageContaining("truncated_member.npz member x.npy")
                    .hasMessageContaining("1024 bytes of data")
                    .hasMessageContaining("only 1014 bytes");
        }
    }

    @Test
    void notAZipIsRefused() {
        assertThatThrownBy(() -> NpzArchive.open(NpyFixtures.file("f4_le_c.npy")))
                .isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("f4_le_c.npy")
                .hasMessageContaining("not a zip");
        Path cut = temp.resolve("cut.npz");
        assertThatThrownBy(() -> {
                    byte[] whole = Files.readAllBytes(NpyFixtures.file("arrays.npz"));
                    Files.write(cut, java.util.Arrays.copyOf(whole, whole.length - 30));
                    NpzArchive.open(cut);
                })
                .isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("cut.npz");
    }

    @Test
    void otherCompressionMethodsAndNonNpyMembers(@TempDir Path dir) throws IOException {
        Path zip = dir.resolve("mixed.npz");
        try (OutputStream o = Files.newOutputStream(zip);
                ZipOutputStream z = new ZipOutputStream(o)) {
            z.putNextEntry(new ZipEntry("readme.txt"));
            z.write("not an array".getBytes());
            z.closeEntry();
            z.putNextEntry(new ZipEntry("a.npy"));
            z.write(Files.readAllBytes(NpyFixtures.file("f4_le_c.npy")));
            z.closeEntry();
        }
        // Java's writer uses data descriptors (sizes after the data): the central directory still has them all
        try (NpzArchive npz = NpzArchive.open(zip, 1 << 20, 1 << 30, dir)) {
            assertThat(npz.names()).containsExactly("a");
            float[] out = new float[60];
            npz.array("a").readSamples(0, 4, out, 0);
            assertThat((double) out[59]).isEqualTo(NpyFixtures.expected('f', 59));
        }
    }

    @Test
    void unknownCompressionEncryptionAndDuplicateNamesAreRefused() throws IOException {
        byte[] zip = Files.readAllBytes(NpyFixtures.file("arrays.npz"));
        int central = centralEntry(zip, 0);
        byte[] bzip2 = zip.clone();
        bzip2[central + 10] = 12;
        try (NpzArchive npz = NpzArchive.open(Files.write(temp.resolve("bzip2.npz"), bzip2))) {
            assertThatThrownBy(() -> npz.array("x"))
                    .isInstanceOf(NpyFormatException.class)
                    .hasMessageContaining("bzip2.npz")
                    .hasMessageContaining("compression method 12");
        }
        byte[] encrypted = zip.clone();
        encrypted[central + 8] |= 1;
        assertThatThrownBy(() -> NpzArchive.open(Files.write(temp.resolve("encrypted.npz"), encrypted)))
                .isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("member x.npy is encrypted");
        byte[] twice = zip.clone();
        int second = centralEntry(zip, 1);
        twice[second + 46] = 'x'; // y.npy becomes a second x.npy in the directory
        assertThatThrownBy(() -> NpzArchive.open(Files.write(temp.resolve("twice.npz"), twice)))
                .isInstanceOf(NpyFormatException.class)
                .hasMessageContaining("two members named x.npy");
    }

    /** Offset of the {@code n}th central directory entry (signature PK\1\2). */
    private static int centralEntry(byte[] zip, int n) {
        int seen = 0;
        for (int p = 0; p + 4 <= zip.length; p++) {
            if (zip[p] == 'P' && zip[p + 1] == 'K' && zip[p + 2] == 1 && zip[p + 3] == 2 && seen++ == n) {
                return p;
            }
        }
        throw new AssertionError("no central entry " + n);
    }

    /** Inflated members and part files in the cache folder (the test's own archives end in .npz). */
    private long cacheFiles() throws IOException {
        try (Stream<Path> s = Files.list(temp)) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(InflateCache.ENTRY_SUFFIX) || n.contains(InflateCache.PART_MARK))
                    .count();
        }
    }
}
