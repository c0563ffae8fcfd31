package org.traindeck.engine.parallel;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(driver.problemHere()).isEqualTo("sees " + f + " with " + ((3 << 20) - 1) + " bytes, the driver with " + (3 << 20));
        // the same size, a byte changed near the end (past the first MiB)
        byte[] changed = random(3 << 20, 1);
        changed[changed.length - 10] ^= 1;
        Files.write(f, changed);
        assertThat(driver.problemHere()).contains("other content than the driver").contains(f.toString());
    }

    @Test
    void anImageFolderIsComparedByItsFilesNamesAndSizes() throws IOException {
        Path images = Files.createDirectories(dir.resolve("images/cat"));
        Files.write(images.resolve("1.png"), random(50, 2));
        ShardData data = new ShardData("{}", 0, 1, List.of(DataFile.read(dir.resolve("images"))));
        assertThat(data.problemHere()).isNull();
        Files.write(images.resolve("2.png"), random(50, 3));
        assertThat(data.problemHere()).contains("sees " + dir.resolve("images") + " with 100 bytes, the driver with 50");
    }
}
