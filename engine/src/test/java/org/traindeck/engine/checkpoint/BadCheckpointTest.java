package org.traindeck.engine.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.FolderHashes;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.train.ResumeOptions;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/** Every bad checkpoint gets a clear refusal, and a refused resume changes nothing on disk. */
class BadCheckpointTest {

    private Path runDir;
    private Path good;

    @BeforeEach
    void train(@TempDir Path dir) throws IOException {
        RunResult r = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse("""
                {"name": "victim", "outputDir": "out", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 20}]}
                """, dir).orThrow()))
                .runHere();
        runDir = r.runDir();
        good = r.lastCheckpoint();
    }

    private Path copy(String name) throws IOException {
        return Files.copy(good, good.resolveSibling(name));
    }

    private String refusal(Path checkpoint) throws Exception {
        Map<String, String> before = FolderHashes.of(runDir);
        MainAccess.Result r = MainAccess.run(
                new NvidiaSmi("", Duration.ofSeconds(1)), new OshiHostProbe(), "resume", checkpoint.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).doesNotContain("\tat ");
        assertThat(FolderHashes.of(runDir))
                .as("nothing in the run folder changed")
                .isEqualTo(before);
        return r.stderr();
    }

    @Test
    void aTruncatedCheckpointIsRefused() throws Exception {
        Path cut = copy("step-000000099.tdckpt");
        byte[] bytes = Files.readAllBytes(cut);
        Files.write(cut, Arrays.copyOf(bytes, bytes.length / 2));

        assertThat(refusal(cut)).contains("not a TrainDeck checkpoint (not a zip archive, or truncated)");
        assertThatThrownBy(() -> CheckpointFiles.read(cut)).isInstanceOf(CheckpointException.class);
    }

    @Test
    void aDamagedByteIsCaughtByTheChecksum() throws Exception {
        Path damaged = good.resolveSibling("step-000000098.tdckpt");
        CheckpointFiles.Contents c = CheckpointFiles.read(good);
        // rewrite with a manifest that no longer matches the parameters
        float[] params = c.params().clone();
        CheckpointFiles.write(damaged, c.checkpoint(), c.configJson(), params, c.updaterState());
        rewriteEntry(damaged, "params.bin", flip(entryBytes(damaged, "params.bin")));

        assertThat(refusal(damaged)).contains("params.bin does not match its checksum");
    }

    @Test
    void aFileThatIsNotACheckpointIsRefused() throws Exception {
        Path text = good.resolveSibling("step-000000097.tdckpt");
        Files.writeString(text, "just some text");
        assertThat(refusal(text)).contains("not a TrainDeck checkpoint");

        Path otherZip = good.resolveSibling("step-000000096.tdckpt");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(otherZip))) {
            zip.putNextEntry(new ZipEntry("manifest.json"));
            zip.write("{\"format\": \"something-else\"}".getBytes());
            zip.closeEntry();
        }
        assertThat(refusal(otherZip)).contains("its manifest has no \"format\": \"traindeck-checkpoint\"");
    }

    @Test
    void pathsOutsideTheArchiveAreNeverFollowed() throws Exception {
        Path evil = good.resolveSibling("step-000000095.tdckpt");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(evil))) {
            zip.putNextEntry(new ZipEntry("../../../../tmp/traindeck-zip-slip"));
            zip.write("owned".getBytes());
            zip.closeEntry();
        }

        assertThat(refusal(evil)).contains("unexpected entry \"../../../../tmp/traindeck-zip-slip\"");
        assertThat(Path.of("/tmp/traindeck-zip-slip")).doesNotExist();
    }

    @Test
    void aCheckpointOfAnotherArchitectureIsRefused(@TempDir Path elsewhere) throws Exception {
        Path other = elsewhere.resolve("other.json");
        Files.writeString(other, """
                {"name": "victim", "model": {"type": "mlp", "hidden": [64, 64]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 4, "batchSize": 20}]}
                """);
        Map<String, String> before = FolderHashes.of(runDir);

        assertThatThrownBy(() -> TrainingRun.resume(runDir, new ResumeOptions(other, null), DeviceDiscovery.system()))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("model: differs from the model the checkpoint was trained with");
        assertThat(FolderHashes.of(runDir)).isEqualTo(before);
    }

    @Test
    void unsafeChangesAreRefusedAndSafeOnesAccepted(@TempDir Path elsewhere) throws Exception {
        Path unsafe = elsewhere.resolve("unsafe.json");
        Files.writeString(unsafe, """
                {"name": "victim", "seed": 7, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 1, "batchSize": 20, "optimizer": {"type": "sgd", "learningRate": 0.1}}]}
                """);
        assertThatThrownBy(() -> TrainingRun.resume(runDir, new ResumeOptions(unsafe, null), DeviceDiscovery.system()))
                .hasMessageContaining("seed: cannot change on resume")
                .hasMessageContaining("stages[0].optimizer: only its learning rate may change")
                .hasMessageContaining("stages[0].epochs: is 1, but the checkpoint has already reached epoch 2");

        Path safe = elsewhere.resolve("safe.json");
        Files.writeString(safe, """
                {"name": "victim", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 3, "batchSize": 20, "optimizer": {"type": "adam", "learningRate": 0.0005}}],
                 "logging": {"everySteps": 5}}
                """);
        RunResult r = TrainingRun.resume(runDir, new ResumeOptions(safe, null), DeviceDiscovery.system())
                .runHere();
        assertThat(r.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(r.steps()).isEqualTo(24);
        assertThat(runDir.resolve("config.resume-1.json")).exists();
    }

    @Test
    void theOutputFolderInsteadOfARunNamesTheRunsInIt() {
        MainAccess.Result r = MainAccess.run(
                new NvidiaSmi("", Duration.ofSeconds(1)),
                new OshiHostProbe(),
                "resume",
                runDir.getParent().toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr())
                .contains("has no checkpoints")
                .contains("It holds run folders: give one of them, for example " + runDir);
    }

    @Test
    void checkpointsListingMarksTheBadOnes() throws Exception {
        Files.writeString(good.resolveSibling("step-000000001.tdckpt"), "garbage");
        Files.writeString(good.resolveSibling(".tmp-123.tdckpt.part"), "a write that crashed");

        MainAccess.Result r = MainAccess.run(
                new NvidiaSmi("", Duration.ofSeconds(1)), new OshiHostProbe(), "checkpoints", runDir.toString());

        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout())
                .contains("step-000000016.tdckpt", "stage-end", "valid")
                .contains("step-000000001.tdckpt        INVALID: ")
                .doesNotContain(".tmp-");
        // resume skips the invalid one and the leftover temp file
        assertThat(new CheckpointStore(runDir).latestValid().orElseThrow().file())
                .isEqualTo(good);
    }

    private static byte[] flip(byte[] b) {
        b[b.length / 2] ^= 0x40;
        return b;
    }

    private static byte[] entryBytes(Path zip, String name) throws IOException {
        try (ZipFile z = new ZipFile(zip.toFile())) {
            return z.getInputStream(z.getEntry(name)).readAllBytes();
        }
    }

    private static void rewriteEntry(Path zipFile, String name, byte[] data) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (ZipFile z = new ZipFile(zipFile.toFile())) {
            for (var e : Collections.list(z.entries())) {
                entries.put(e.getName(), z.getInputStream(e).readAllBytes());
            }
        }
        entries.put(name, data);
        try (OutputStream out = Files.newOutputStream(zipFile);
                ZipOutputStream zip = new ZipOutputStream(out)) {
            for (var e : entries.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue());
                zip.closeEntry();
            }
        }
    }
}
