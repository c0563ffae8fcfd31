package org.traindeck.engine.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The weight average in a checkpoint: an optional entry, so checkpoints without one read as before. */
class EmaCheckpointTest {

    private static final float[] PARAMS = {0.5f, -1.25f, 3f};
    private static final float[] UPDATER = {1f, 2f};
    private static final float[] EMA = {0.25f, -1f, 2.5f};

    private static Checkpoint checkpoint() {
        return new Checkpoint(
                Checkpoint.FORMAT_VERSION,
                "r",
                "s",
                0,
                1,
                2,
                3,
                0,
                1.5,
                0.7,
                4,
                Map.of("s", 0.5),
                "fp",
                PARAMS.length,
                UPDATER.length,
                "FLOAT",
                "time",
                0,
                1,
                "");
    }

    @Test
    void theAverageIsWrittenAndReadBack(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("step-000000003.tdckpt");
        CheckpointFiles.write(file, checkpoint(), "{}", PARAMS, UPDATER, EMA, CheckpointWriteHook.NONE);

        CheckpointFiles.Contents c = CheckpointFiles.read(file);
        assertThat(c.ema()).containsExactly(EMA);
        assertThat(c.params()).containsExactly(PARAMS);
        assertThat(CheckpointFiles.verify(file)).isEqualTo(c.checkpoint());
    }

    @Test
    void aCheckpointWithoutOneHasTheEntriesItAlwaysHadAndReadsWithNone(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("step-000000003.tdckpt");
        CheckpointFiles.write(file, checkpoint(), "{}", PARAMS, UPDATER);

        try (ZipFile zip = new ZipFile(file.toFile())) {
            assertThat(Collections.list(zip.entries()).stream().map(ZipEntry::getName))
                    .containsExactly("manifest.json", "config.json", "params.bin", "updater.bin");
        }
        assertThat(CheckpointFiles.read(file).ema()).isNull();
    }

    @Test
    void anAverageTheManifestDoesNotDescribeIsRefused(@TempDir Path dir) throws Exception {
        Path plain = dir.resolve("plain.tdckpt");
        CheckpointFiles.write(plain, checkpoint(), "{}", PARAMS, UPDATER);
        Path smuggled = dir.resolve("smuggled.tdckpt");
        try (ZipFile in = new ZipFile(plain.toFile());
                OutputStream os = Files.newOutputStream(smuggled);
                ZipOutputStream out = new ZipOutputStream(os)) {
            for (ZipEntry e : Collections.list(in.entries())) {
                out.putNextEntry(new ZipEntry(e.getName()));
                try (InputStream data = in.getInputStream(e)) {
                    data.transferTo(out);
                }
            }
            out.putNextEntry(new ZipEntry("ema.bin"));
            out.write(new byte[12]);
        }

        assertThatThrownBy(() -> CheckpointFiles.read(smuggled))
                .isInstanceOf(CheckpointException.class)
                .hasMessageContaining("does not describe ema.bin");
        assertThatThrownBy(() -> CheckpointFiles.verify(smuggled)).isInstanceOf(CheckpointException.class);
    }

    @Test
    void anAverageOfAnotherLengthIsNotWritten(@TempDir Path dir) {
        assertThatThrownBy(() -> CheckpointFiles.write(
                        dir.resolve("x.tdckpt"),
                        checkpoint(),
                        "{}",
                        PARAMS,
                        UPDATER,
                        new float[2],
                        CheckpointWriteHook.NONE))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
