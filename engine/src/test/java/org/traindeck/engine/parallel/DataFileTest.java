package org.traindeck.engine.parallel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A machine whose copy of the data is missing, shorter or different from the driver's is told apart, with the path. */
class DataFileTest {

    @TempDir
    Path dir;

    private Path file(String name, byte[] bytes) throws IOException {
        return Files.write(dir.resolve(name), bytes);
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void theSameFileHasNoProblem() throws IOException {
        DataFile driver = DataFile.read(file("a.csv", random(3 << 20, 1)));
        assertThat(driver.bytes()).isEqualTo(3 << 20);
        assertThat(driver.problemHere()).isNull();
    }

    @Test
    void aMissingFileIsNamed() throws IOException {
        Path f = file("a.csv", random(100, 1));
        DataFile driver = DataFile.read(f);
        Files.delete(f);
        assertThat(driver.problemHere()).isEqualTo("cannot read " + f + " (no such file or folder)");
    }

    @Test
    void aFileOfAnotherSizeOrContentIsNamed() throws IOException {
        Path f = file("a.csv", random(3 << 20, 1));
        DataFile driver = DataFile.read(f);
        Files.write(f, random((3 << 20) - 1, 1));
        assertThat(driver.problemHere())
                .isEqualTo("sees " + f + " with " + ((3 << 20) - 1) + " bytes, the driver with " + (3 << 20));
        // the same size, a byte changed near the end (past the first MiB)
        byte[] changed = random(3 << 20, 1);
        changed[changed.length - 10] ^= 1;
        Files.write(f, changed);
        assertThat(driver.problemHere())
                .contains("other content than the driver")
                .contains(f.toString());
    }

    @Test
    void anImageFolderIsComparedByItsFilesNamesAndSizes() throws IOException {
        Path images = Files.createDirectories(dir.resolve("images/cat"));
        Files.write(images.resolve("1.png"), random(50, 2));
        ShardData data = new ShardData("{}", 0, 1, List.of(DataFile.read(dir.resolve("images"))));
        assertThat(data.problemHere()).isNull();
        Files.write(images.resolve("2.png"), random(50, 3));
        assertThat(data.problemHere())
                .contains("sees " + dir.resolve("images") + " with 100 bytes, the driver with 50");
    }

    @Test
    void aFileThatDiffersOnlyInTheMiddleIsNamed() throws IOException {
        int size = (int) (2.6 * (1 << 20));
        Path f = file("a.csv", random(size, 4));
        DataFile driver = DataFile.read(f, new FileFingerprints(dir.resolve("cache")));
        // bytes 1.03-1.55 MiB: between the first and the last MiB, which were all a fingerprint covered before
        byte[] changed = random(size, 4);
        for (int i = (int) (1.03 * (1 << 20)); i < (int) (1.55 * (1 << 20)); i++) {
            changed[i] ^= 0x5a;
        }
        Files.write(f, changed);
        assertThat(driver.problemHere())
                .isEqualTo("sees " + f + " with other content than the driver (same size, " + size + " bytes)");
    }

    @Test
    void aSettledFileIsReadOnceThenItsFingerprintComesFromTheCacheUntilItsSizeOrTimeChanges() throws IOException {
        Path cache = dir.resolve("cache").resolve("fingerprints.properties");
        Path f = file("a.csv", random(3 << 20, 5));
        FileTime anHourAgo = FileTime.from(Instant.now().minus(Duration.ofHours(1)));
        Files.setLastModifiedTime(f, anHourAgo);
        String first = new FileFingerprints(cache).of(f);
        assertThat(Files.readString(cache)).contains(first);

        // same size and time, other bytes: a new process (a new FileFingerprints) takes the cached value, no full read
        byte[] changed = random(3 << 20, 5);
        changed[3 << 19] ^= 1;
        Files.write(f, changed);
        Files.setLastModifiedTime(f, anHourAgo);
        assertThat(new FileFingerprints(cache).of(f)).isEqualTo(first);

        Files.setLastModifiedTime(f, FileTime.from(Instant.now().minus(Duration.ofMinutes(30))));
        assertThat(new FileFingerprints(cache).of(f)).isNotEqualTo(first).isEqualTo(FileFingerprints.hash(f, 3 << 20));
    }

    @Test
    void aFileJustWrittenIsNeverCached() throws IOException {
        Path cache = dir.resolve("cache").resolve("fingerprints.properties");
        Path f = file("a.csv", random(1000, 6));
        new FileFingerprints(cache).of(f);
        assertThat(cache).doesNotExist();
    }
}
