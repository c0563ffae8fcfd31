package org.traindeck.engine.use.predict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A write that fails half-way leaves no file of it, no temporary, and what was there before. */
class AtomicOutputTest {

    private static long entries(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    @Test
    void predictionsGetTheModeOfTheFoldersOtherFilesNotOwnerOnly(@TempDir Path dir) throws IOException {
        // a file written as export and the sinks write theirs: what the umask gives (0644 under the usual 022)
        Path plain = Files.writeString(dir.resolve("export.json"), "{}");
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        files.put(dir.resolve("p.npy"), out -> out.write(1));
        AtomicOutput.writeFiles(files, false);
        AtomicOutput.writeFolder(dir.resolve("masks"), false, f -> Files.writeString(f.resolve("one.png"), "1"));
        Path plainFolder = Files.createDirectory(dir.resolve("plain"));

        assertThat(Files.getPosixFilePermissions(dir.resolve("p.npy"))).isEqualTo(Files.getPosixFilePermissions(plain));
        assertThat(Files.getPosixFilePermissions(dir.resolve("masks")))
                .isEqualTo(Files.getPosixFilePermissions(plainFolder));
    }

    @Test
    void filesAppearTogetherOrNotAtAll(@TempDir Path dir) throws IOException {
        Path a = dir.resolve("a.npy");
        Path b = dir.resolve("a.classes.npy");
        Map<Path, AtomicOutput.Content> files = new LinkedHashMap<>();
        files.put(a, out -> out.write("first".getBytes(StandardCharsets.UTF_8)));
        files.put(b, out -> {
            out.write("half".getBytes(StandardCharsets.UTF_8));
            throw new IOException("disk full");
        });
        assertThatThrownBy(() -> AtomicOutput.writeFiles(files, false)).hasMessage("disk full");
        assertThat(entries(dir)).isZero();

        files.put(b, out -> out.write("second".getBytes(StandardCharsets.UTF_8)));
        AtomicOutput.writeFiles(files, false);
        assertThat(Files.readString(a)).isEqualTo("first");
        assertThat(Files.readString(b)).isEqualTo("second");
        assertThat(entries(dir)).isEqualTo(2);
    }

    @Test
    void aFolderIsReplacedWholeOrKeptAsItWas(@TempDir Path dir) throws IOException {
        Path masks = dir.resolve("masks");
        AtomicOutput.writeFolder(masks, false, folder -> Files.writeString(folder.resolve("one.png"), "1"));
        assertThat(Files.readString(masks.resolve("one.png"))).isEqualTo("1");

        assertThatThrownBy(() -> AtomicOutput.writeFolder(masks, false, folder -> {}))
                .hasMessageContaining("exists: give --force");
        assertThatThrownBy(() -> AtomicOutput.writeFolder(masks, true, folder -> {
                    Files.writeString(folder.resolve("two.png"), "2");
                    throw new IOException("disk full");
                }))
                .hasMessage("disk full");
        assertThat(Files.readString(masks.resolve("one.png"))).isEqualTo("1");
        assertThat(entries(masks)).isEqualTo(1);
        assertThat(entries(dir)).as("no temporary folder left").isEqualTo(1);

        AtomicOutput.writeFolder(masks, true, folder -> Files.writeString(folder.resolve("two.png"), "2"));
        assertThat(masks.resolve("one.png")).doesNotExist();
        assertThat(Files.readString(masks.resolve("two.png"))).isEqualTo("2");
        assertThat(entries(dir)).isEqualTo(1);

        assertThatThrownBy(() -> AtomicOutput.writeFiles(Map.of(masks, out -> {}), true))
                .hasMessageContaining("is a folder");
    }
}
