package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inflated {@code .npz} members outlive a SIGKILL (deleteOnExit never runs), so they live in a folder named after
 * their process, which the next TrainDeck start removes once that process has ended (issue 35, item 8). Real child
 * JVMs, a real SIGKILL, a real start of the CLI.
 */
class InflateFoldersProcessTest {

    private static Process java(Path tmp, Path log, String mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }

    private static long filesIn(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.count();
        }
    }

    @Test
    void aKilledProcessesInflatedMembersAreRemovedByTheNextStartAndALiveOnesAreKept(@TempDir Path dir)
            throws Exception {
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Path childLog = dir.resolve("child.log");
        Process child = java(
                tmp,
                childLog,
                InflatingChild.class.getName(),
                NpyFixtures.file("arrays_compressed.npz").toString(),
                "x");
        Path killedFolder = tmp.resolve(InflateFolders.PREFIX + child.pid());
        try {
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        assertThat(child.isAlive()).as(read(childLog)).isTrue();
                        return read(childLog).contains("inflated");
                    });
            assertThat(killedFolder)
                    .as("the member is inflated into the process's own folder")
                    .isDirectory();
            assertThat(filesIn(killedFolder)).isEqualTo(1);
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(filesIn(killedFolder)).as("SIGKILL: no deleteOnExit ran").isEqualTo(1);

        // a live owner's folder (this test's JVM), and folders that are not TrainDeck's to judge
        Path liveFolder = Files.createDirectory(
                tmp.resolve(InflateFolders.PREFIX + ProcessHandle.current().pid()));
        Files.writeString(liveFolder.resolve("member.npy"), "in use");
        Path notAPid = Files.createDirectory(tmp.resolve(InflateFolders.PREFIX + "cache"));
        Path aFile = Files.writeString(tmp.resolve(InflateFolders.PREFIX + "12.npy"), "someone else's");

        Path startLog = dir.resolve("start.log");
        Process start = java(tmp, startLog, "org.traindeck.engine.cli.Main", "--help");
        assertThat(start.waitFor(60, TimeUnit.SECONDS))
                .as("the CLI starts and ends")
                .isTrue();

        assertThat(killedFolder).as(read(startLog)).doesNotExist();
        assertThat(liveFolder.resolve("member.npy")).exists();
        assertThat(notAPid).isDirectory();
        assertThat(aFile).exists();
    }
}
