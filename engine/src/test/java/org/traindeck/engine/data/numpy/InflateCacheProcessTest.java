package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader of a deflated {@code .npz} killed with SIGKILL leaves nothing in the temporary folder: its members are in
 * TrainDeck's cache, complete, where the next start keeps them while their archive is unchanged and the next read
 * maps them again, and where a start after the archive went removes them (issue 42, item 5). Real child JVMs with
 * their own data folder, a real SIGKILL, real starts of the CLI.
 */
class InflateCacheProcessTest {

    private static Process java(Path dir, Path log, String mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Djava.io.tmpdir=" + dir.resolve("tmp"),
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        command.addAll(List.of(args));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("XDG_DATA_HOME", dir.resolve("data").toString());
        return builder.start();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }

    private static List<String> namesIn(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static List<Object> inodes(Path folder) throws IOException {
        List<Object> keys = new ArrayList<>();
        for (String name : namesIn(folder)) {
            keys.add(Files.readAttributes(folder.resolve(name), BasicFileAttributes.class)
                    .fileKey());
        }
        return keys;
    }

    private static void startTheCli(Path dir, String log) throws Exception {
        Process start = java(dir, dir.resolve(log), "org.traindeck.engine.cli.Main", "--help");
        assertThat(start.waitFor(120, TimeUnit.SECONDS))
                .as("the CLI starts and ends")
                .isTrue();
        assertThat(start.exitValue()).as(read(dir.resolve(log))).isZero();
    }

    @Test
    void aKilledReaderLeavesNothingInTmpAndItsCachedMembersAreReusedThenSweptWhenTheArchiveGoes(@TempDir Path dir)
            throws Exception {
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Path archive = Files.copy(NpyFixtures.file("arrays_compressed.npz"), dir.resolve("set.npz"));
        Path cache = dir.resolve("data").resolve("traindeck").resolve("cache").resolve("npz");
        Path childLog = dir.resolve("child.log");
        Process child = java(dir, childLog, InflatingChild.class.getName(), archive.toString(), "x", "y");
        try {
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        assertThat(child.isAlive()).as(read(childLog)).isTrue();
                        return read(childLog).contains("inflated");
                    });
        } finally {
            child.destroyForcibly(); // SIGKILL: nothing of the child's runs at exit
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(namesIn(tmp)).as("nothing in java.io.tmpdir").isEmpty();
        List<String> members = namesIn(cache);
        assertThat(members)
                .as("both members, complete: no part file")
                .hasSize(2)
                .allMatch(name -> name.endsWith(InflateCache.ENTRY_SUFFIX) && !name.contains(InflateCache.PART_MARK));
        List<Object> inflatedOnce = inodes(cache);

        startTheCli(dir, "start.log");
        assertThat(namesIn(cache)).as("kept: the archive is unchanged").isEqualTo(members);
        try (NpzArchive npz = NpzArchive.open(archive, 1 << 20, 1 << 30, cache)) {
            float[] out = new float[36];
            npz.array("x").readSamples(0, 6, out, 0);
            assertThat((double) out[35]).isEqualTo(NpyFixtures.expected('f', 35));
            npz.array("y");
        }
        assertThat(inodes(cache))
                .as("the next read maps the killed reader's members")
                .isEqualTo(inflatedOnce);

        Files.delete(archive);
        startTheCli(dir, "start-again.log");
        assertThat(namesIn(cache)).as("the archive went: so do its members").isEmpty();
        assertThat(namesIn(tmp)).isEmpty();
    }
}
