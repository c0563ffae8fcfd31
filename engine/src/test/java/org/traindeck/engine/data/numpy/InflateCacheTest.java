package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deflated members are inflated once into a cache folder, reused by every archive opened on the same file, never
 * trusted when incomplete or made from another file, and swept when their archive changed or went, when unused too
 * long, or past the size cap (issue 42, item 5). Real archives, real files, a real ended process.
 */
class InflateCacheTest {

    private static final InflateCache.Limits NO_LIMITS = new InflateCache.Limits(Duration.ofDays(14), Long.MAX_VALUE);

    @TempDir
    Path dir;

    private Path cache;

    @BeforeEach
    void cacheFolder() {
        cache = dir.resolve("cache");
    }

    @Test
    void twoArchivesOnOneFileInflateEachMemberOnce() throws IOException {
        Path file = NpyFixtures.file("arrays_compressed.npz");
        Map<String, Object> firstInodes = new HashMap<>();
        try (NpzArchive npz = NpzArchive.open(file, 1 << 20, 1 << 30, cache)) {
            npz.array("x");
            npz.array("y");
            for (Path entry : entries()) {
                firstInodes.put(entry.getFileName().toString(), inode(entry));
            }
        }
        assertThat(firstInodes).hasSize(2);
        try (NpzArchive first = NpzArchive.open(file, 1 << 20, 1 << 30, cache);
                NpzArchive second = NpzArchive.open(file, 1 << 20, 1 << 30, cache)) {
            for (NpzArchive npz : List.of(first, second)) {
                assertValuesOfX(npz.array("x"));
                long[] labels = new long[6];
                npz.array("y").readSamplesLongs(0, 6, labels, 0);
                assertThat(labels[5]).isEqualTo((long) NpyFixtures.expected('i', 5));
            }
        }
        Map<String, Object> laterInodes = new HashMap<>();
        for (Path entry : entries()) {
            laterInodes.put(entry.getFileName().toString(), inode(entry));
        }
        assertThat(laterInodes)
                .as("the same files, not inflated again, and nothing more")
                .isEqualTo(firstInodes);
        assertThat(partFiles()).isEmpty();
    }

    @Test
    void aChangedArchiveIsInflatedAgainAndItsOldMemberGoesAtTheNextSweep() throws IOException {
        Path file = deflatedArchive("set.npz", "f4_le_c.npy");
        try (NpzArchive npz = NpzArchive.open(file, 1 << 20, 1 << 30, cache)) {
            assertThat(npz.array("x").dtype()).isEqualTo(NpyDType.FLOAT32);
        }
        Path before = entries().get(0);
        FileTime written = Files.getLastModifiedTime(file);
        deflatedArchive("set.npz", "f8_le_c.npy");
        Files.setLastModifiedTime(file, FileTime.fromMillis(written.toMillis() + 5_000));
        try (NpzArchive npz = NpzArchive.open(file, 1 << 20, 1 << 30, cache)) {
            NpyArray x = npz.array("x");
            assertThat(x.dtype()).as("the new content, not the cached old one").isEqualTo(NpyDType.FLOAT64);
            float[] out = new float[(int) (x.sampleCount() * x.sampleLength())];
            x.readSamples(0, (int) x.sampleCount(), out, 0);
            assertThat((double) out[out.length - 1]).isEqualTo(NpyFixtures.expected('f', out.length - 1));
        }
        assertThat(entries()).hasSize(2).contains(before);

        assertThat(new InflateCache(cache).clean(NO_LIMITS)).containsExactly(before);
        assertThat(entries()).hasSize(1).doesNotContain(before);

        Files.delete(file);
        List<Path> last = entries();
        assertThat(new InflateCache(cache).clean(NO_LIMITS)).isEqualTo(last);
        assertThat(entries()).isEmpty();
    }

    @Test
    void aPartFileOfAKilledWriterIsNeverReadAndOnlyAnEndedWritersIsSwept() throws Exception {
        Path file = NpyFixtures.file("arrays_compressed.npz");
        Path other = dir.resolve("other");
        try (NpzArchive npz = NpzArchive.open(file, 1 << 20, 1 << 30, other)) {
            npz.array("x");
        }
        Path complete = entries(other).get(0);
        String key = complete.getFileName().toString().replace(InflateCache.ENTRY_SUFFIX, "");
        byte[] half = Arrays.copyOf(Files.readAllBytes(complete), (int) Files.size(complete) / 2);
        Files.createDirectories(cache);
        Path ended = Files.write(cache.resolve(key + InflateCache.PART_MARK + endedPid() + "-1"), half);
        Path live = Files.write(
                cache.resolve(
                        key + InflateCache.PART_MARK + ProcessHandle.current().pid() + "-99"),
                half);
        Path notOurs = Files.writeString(cache.resolve("notes.txt"), "someone else's");

        try (NpzArchive npz = NpzArchive.open(file, 1 << 20, 1 << 30, cache)) {
            assertValuesOfX(npz.array("x"));
        }
        assertThat(entries()).hasSize(1);
        assertThat(Files.size(entries().get(0))).isEqualTo(Files.size(complete));

        assertThat(new InflateCache(cache).clean(NO_LIMITS)).containsExactly(ended);
        assertThat(live).as("a running writer's part").exists();
        assertThat(notOurs).exists();
        assertThat(entries()).hasSize(1);
    }

    @Test
    void aDamagedEntryOrOneHoldingAnotherMemberIsInflatedAgain() throws IOException {
        Path file = NpyFixtures.file("arrays_compressed.npz");
        Map<String, Path> byMember = new HashMap<>();
        try (NpzArchive npz = NpzArchive.open(file, 1 << 20, 1 << 30, cache)) {
            npz.array("x");
            byMember.put("x", entries().get(0));
            npz.array("xf");
        }
        byMember.put(
                "xf",
                entries().stream()
                        .filter(p -> !p.equals(byMember.get("x")))
                        .findFirst()
                        .orElseThrow());
        long completeSize = Files.size(byMember.get("x"));

        // cut short, as a file written without the rename could be
        byte[] whole = Files.readAllBytes(byMember.get("x"));
        Files.write(byMember.get("x"), Arrays.copyOf(whole, whole.length - 20));
        try (NpzArchive npz = NpzArchive.open(file, 1 << 20, 1 << 30, cache)) {
            assertValuesOfX(npz.array("x"));
        }
        assertThat(Files.size(byMember.get("x"))).isEqualTo(completeSize);

        // complete, but another member's (xf, the same values in Fortran order) under x's name
        Files.copy(byMember.get("xf"), byMember.get("x"), StandardCopyOption.REPLACE_EXISTING);
        try (NpzArchive npz = NpzArchive.open(file, 1 << 20, 1 << 30, cache)) {
            NpyArray x = npz.array("x");
            assertThat(x.header().fortranOrder()).isFalse();
            assertValuesOfX(x);
        }
    }

    @Test
    void theSweepRemovesMembersUnusedTooLongThenTheLeastRecentlyUsedPastTheCap() throws IOException {
        Path file = NpyFixtures.file("arrays_compressed.npz");
        Map<String, Path> byMember = new HashMap<>();
        try (NpzArchive npz = NpzArchive.open(file, 1 << 20, 1 << 30, cache)) {
            for (String name : List.of("x", "y", "xf")) {
                List<Path> known = entries();
                npz.array(name);
                byMember.put(
                        name,
                        entries().stream()
                                .filter(p -> !known.contains(p))
                                .findFirst()
                                .orElseThrow());
            }
        }
        Instant now = Instant.now();
        Files.setLastModifiedTime(byMember.get("x"), FileTime.from(now.minus(Duration.ofDays(20))));
        Files.setLastModifiedTime(byMember.get("y"), FileTime.from(now.minus(Duration.ofHours(2))));
        Files.setLastModifiedTime(byMember.get("xf"), FileTime.from(now.minus(Duration.ofHours(3))));

        // reading marks a member used: xf becomes the most recent
        try (NpzArchive npz = NpzArchive.open(file, 1 << 20, 1 << 30, cache)) {
            npz.array("xf");
        }
        assertThat(new InflateCache(cache).clean(NO_LIMITS)).containsExactly(byMember.get("x"));

        long cap = Files.size(byMember.get("xf"));
        assertThat(new InflateCache(cache).clean(new InflateCache.Limits(Duration.ofDays(14), cap)))
                .containsExactly(byMember.get("y"));
        assertThat(entries()).containsExactly(byMember.get("xf"));
    }

    @Test
    void aCacheFolderThatCannotBeMadeIsAnErrorNamingTheArchiveAndTheFolder() throws IOException {
        Path blocked = Files.writeString(dir.resolve("blocked"), "a file where the cache folder should be");
        try (NpzArchive npz = NpzArchive.open(NpyFixtures.file("arrays_compressed.npz"), 1 << 20, 1 << 30, blocked)) {
            assertThatThrownBy(() -> npz.array("x"))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("arrays_compressed.npz member x.npy")
                    .hasMessageContaining("cache folder " + blocked);
        }
    }

    @Test
    void aMissingCacheFolderIsNothingToSweep() {
        assertThat(new InflateCache(dir.resolve("never-made")).clean(NO_LIMITS)).isEmpty();
    }

    private static void assertValuesOfX(NpyArray x) {
        assertThat(x.shape()).containsExactly(6, 2, 3);
        float[] out = new float[36];
        x.readSamples(0, 6, out, 0);
        for (int c = 0; c < 36; c++) {
            assertThat((double) out[c]).isEqualTo(NpyFixtures.expected('f', c));
        }
    }

    /** An archive holding one deflated member {@code x.npy} with the fixture's bytes. */
    private Path deflatedArchive(String name, String fixture) throws IOException {
        Path zip = dir.resolve(name);
        try (OutputStream o = Files.newOutputStream(zip);
                ZipOutputStream z = new ZipOutputStream(o)) {
            z.putNextEntry(new ZipEntry("x.npy"));
            z.write(Files.readAllBytes(NpyFixtures.file(fixture)));
            z.closeEntry();
        }
        return zip;
    }

    /** The pid of a real process that has ended. */
    private static long endedPid() throws Exception {
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-version")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(ProcessHandle.of(p.pid())).isEmpty();
        return p.pid();
    }

    private static Object inode(Path file) throws IOException {
        return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    }

    private List<Path> entries() throws IOException {
        return entries(cache);
    }

    private static List<Path> entries(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(p -> p.getFileName().toString().endsWith(InflateCache.ENTRY_SUFFIX))
                    .sorted()
                    .toList();
        }
    }

    private List<Path> partFiles() throws IOException {
        try (Stream<Path> files = Files.list(cache)) {
            return files.filter(p -> p.getFileName().toString().contains(InflateCache.PART_MARK))
                    .toList();
        }
    }
}
