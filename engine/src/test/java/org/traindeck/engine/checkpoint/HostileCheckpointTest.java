package org.traindeck.engine.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.FolderHashes;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * Checkpoints made to hurt: another run's checkpoint put in this run's folder, and a zip bomb. Each is refused with a
 * clear message before anything in the run folder changes, and never hides the good checkpoints beside it.
 */
class HostileCheckpointTest {

    private static final String CONFIG = """
            {"name": "%s", "outputDir": "%s", "model": {"type": "mlp", "hidden": [%d]},
             "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}, "validationSplit": 0.2},
             "stages": [{"epochs": %d, "batchSize": 20}]}
            """;

    private Path runDir;

    @BeforeEach
    void train(@TempDir Path dir) throws IOException {
        runDir = run(dir, "victim", "out", 8, 2).runDir();
    }

    private static RunResult run(Path dir, String name, String out, int hidden, int epochs) throws IOException {
        return TrainingRun.open(RunRequest.of(ConfigParser.parse(CONFIG.formatted(name, out, hidden, epochs), dir)
                        .orThrow()))
                .runHere();
    }

    private static MainAccess.Result cli(String... args) {
        return MainAccess.run(new NvidiaSmi("", Duration.ofSeconds(1)), new OshiHostProbe(), args);
    }

    @Test
    void anotherRunsCheckpointInThisRunsFolderIsRefusedAndSkipped(@TempDir Path elsewhere) throws Exception {
        // another run, another architecture, trained longer: its checkpoint has the highest step in the folder
        RunResult intruder = run(elsewhere, "intruder", "out", 32, 6);
        Path planted =
                runDir.resolve("checkpoints").resolve(intruder.lastCheckpoint().getFileName());
        Files.copy(intruder.lastCheckpoint(), planted);
        Map<String, String> before = FolderHashes.of(runDir);

        MainAccess.Result named = cli("resume", planted.toString());
        assertThat(named.exitCode()).isEqualTo(2);
        assertThat(named.stderr())
                .contains("belongs to another run (\"intruder\"")
                .contains("nothing in the run folder was changed")
                .doesNotContain("\tat ");
        assertThat(FolderHashes.of(runDir))
                .as("nothing in the run folder changed")
                .isEqualTo(before);

        // resuming the folder skips the foreign file and continues from the run's own latest checkpoint
        MainAccess.Result folder = cli("resume", runDir.toString(), "--epochs", "3");
        assertThat(folder.exitCode()).as(folder.stderr()).isZero();
        assertThat(Files.readString(runDir.resolve("train.log")))
                .contains("resuming from " + runDir.resolve("checkpoints/step-000000016.tdckpt"));
    }

    /** Issue 35: a checkpoint of another run of the same config (same name, same model) was listed as "valid". */
    @Test
    void aCheckpointOfAnotherRunOfTheSameConfigIsListedAsSuchAndNeverResumed(@TempDir Path elsewhere) throws Exception {
        RunResult twin = run(elsewhere, "victim", "out", 8, 6);
        Path planted =
                runDir.resolve("checkpoints").resolve(twin.lastCheckpoint().getFileName());
        Files.copy(twin.lastCheckpoint(), planted);
        assertThat(RunIdentity.of(runDir)).isNotEmpty().isNotEqualTo(RunIdentity.of(twin.runDir()));
        Map<String, String> before = FolderHashes.of(runDir);

        MainAccess.Result listed = cli("checkpoints", runDir.toString());
        assertThat(listed.stdout())
                .containsPattern(planted.getFileName() + ".*NOT RESUMED: from another run \\(run id ")
                .containsPattern("step-000000016.tdckpt.* valid");

        MainAccess.Result named = cli("resume", planted.toString());
        assertThat(named.exitCode()).isEqualTo(2);
        assertThat(named.stderr())
                .contains("is from another run")
                .contains("nothing in the run folder was changed")
                .doesNotContain("\tat ");
        assertThat(FolderHashes.of(runDir))
                .as("nothing in the run folder changed")
                .isEqualTo(before);

        MainAccess.Result folder = cli("resume", runDir.toString(), "--epochs", "3");
        assertThat(folder.exitCode()).as(folder.stderr()).isZero();
        assertThat(Files.readString(runDir.resolve("train.log")))
                .contains("resuming from " + runDir.resolve("checkpoints/step-000000016.tdckpt"));

        // said in so many words, it continues from it
        MainAccess.Result forced = cli("resume", planted.toString(), "--from-another-run", "--epochs", "7");
        assertThat(forced.exitCode()).as(forced.stderr()).isZero();
        assertThat(Files.readString(runDir.resolve("train.log"))).contains("resuming from " + planted);
    }

    @Test
    void aZipBombIsRefusedWithoutInflatingItAndTheGoodCheckpointsStayUsable() throws Exception {
        Path good = new CheckpointStore(runDir).latestValid().orElseThrow().file();
        Path bomb = runDir.resolve("checkpoints/step-000099999.tdckpt");
        long inflated = (2L << 30) + (256L << 20);
        writeBomb(good, bomb, inflated);
        assertThat(Files.size(bomb)).isLessThan(16L << 20);
        Map<String, String> before = FolderHashes.of(runDir);

        MainAccess.Result listed = cli("checkpoints", runDir.toString());
        assertThat(listed.stdout() + listed.stderr())
                .contains("step-000099999.tdckpt")
                .contains("step-000000016.tdckpt");
        assertThat(listed.stdout() + listed.stderr()).contains("params.bin is said to hold " + inflated + " bytes");

        MainAccess.Result resumed = cli("resume", runDir.toString(), "--epochs", "3");
        assertThat(resumed.exitCode()).as(resumed.stderr()).isZero();
        assertThat(Files.readString(runDir.resolve("train.log"))).contains("resuming from " + good);
        assertThat(before).containsKey("checkpoints/step-000099999.tdckpt");
        assertThat(bomb).exists();
    }

    /** The good checkpoint with params.bin replaced by {@code size} zero bytes, declared as such in the manifest. */
    private static void writeBomb(Path good, Path bomb, long size) throws IOException {
        String manifest;
        byte[] config;
        byte[] updater;
        try (ZipFile z = new ZipFile(good.toFile())) {
            manifest = new String(z.getInputStream(z.getEntry("manifest.json")).readAllBytes(), StandardCharsets.UTF_8);
            config = z.getInputStream(z.getEntry("config.json")).readAllBytes();
            updater = z.getInputStream(z.getEntry("updater.bin")).readAllBytes();
        }
        manifest = manifest.replaceFirst("(\"params.bin\"\\s*:\\s*\\{\\s*\"size\"\\s*:\\s*)\\d+", "$1" + size);
        try (OutputStream out = Files.newOutputStream(bomb);
                ZipOutputStream zip = new ZipOutputStream(out)) {
            zip.setLevel(Deflater.BEST_COMPRESSION);
            zip.putNextEntry(new ZipEntry("manifest.json"));
            zip.write(manifest.getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
            zip.putNextEntry(new ZipEntry("config.json"));
            zip.write(config);
            zip.closeEntry();
            zip.putNextEntry(new ZipEntry("params.bin"));
            byte[] zeros = new byte[1 << 20];
            for (long written = 0; written < size; written += zeros.length) {
                zip.write(zeros, 0, (int) Math.min(zeros.length, size - written));
            }
            zip.closeEntry();
            zip.putNextEntry(new ZipEntry("updater.bin"));
            zip.write(updater);
            zip.closeEntry();
        }
    }
}
