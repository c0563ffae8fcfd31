package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.MetricEvent;

/**
 * A memory-mapped data file cut short while a run reads it: the JVM reports the read as an InternalError, not an
 * exception. The run must end FAILED with the reason, never leave its caller waiting for a result that cannot come.
 */
class DataChangedDuringTrainingTest {

    @TempDir
    Path dir;

    private static void writeNpy(Path file, int samples, int features) throws IOException {
        String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + samples + ", " + features + "), }";
        StringBuilder header = new StringBuilder(dict);
        while ((10 + header.length() + 1) % 64 != 0) {
            header.append(' ');
        }
        header.append('\n');
        ByteBuffer b = ByteBuffer.allocate(10 + header.length() + samples * features * 4)
                .order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x93)
                .put("NUMPY".getBytes(StandardCharsets.US_ASCII))
                .put((byte) 1)
                .put((byte) 0);
        b.putShort((short) header.length()).put(header.toString().getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < samples * features; i++) {
            b.putFloat((i * 7 % 13) / 13f);
        }
        Files.write(file, b.array());
    }

    @Test
    void aDataFileTruncatedMidRunEndsTheRunWithTheReason() throws Exception {
        writeNpy(dir.resolve("x.npy"), 8192, 64);
        RunConfig config = ConfigParser.parse("""
                {"name": "cut", "model": {"type": "graph", "layers": [{"type": "dense", "units": 8}]},
                 "data": {"train": {"type": "numpy", "task": "reconstruction", "inputs": "x.npy"}},
                 "stages": [{"epochs": 1000, "batchSize": 16}]}
                """, dir).orThrow();
        TrainingRun run = TrainingRun.open(RunRequest.of(config));
        AtomicBoolean cut = new AtomicBoolean();
        run.subscribe(
                e -> {
                    if (e instanceof MetricEvent && cut.compareAndSet(false, true)) {
                        try (FileChannel c = FileChannel.open(dir.resolve("x.npy"), StandardOpenOption.WRITE)) {
                            c.truncate(128);
                        } catch (IOException ex) {
                            throw new IllegalStateException(ex);
                        }
                    }
                },
                EventBus.Delivery.LOSSLESS);
        run.start();

        RunResult result = run.completion().get(Duration.ofMinutes(5).toSeconds(), TimeUnit.SECONDS);
        assertThat(cut).isTrue();
        assertThat(result.status()).isEqualTo(RunResult.Status.FAILED);
        assertThat(result.message()).contains("data could not be read").contains("truncated");
    }
}
