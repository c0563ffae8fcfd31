package org.traindeck.engine.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;

class TensorBoardSinkTest {

    @Test
    void crc32cMatchesTheStandardCheckValue() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertThat(TfEventFileReader.crc32c(check)).isEqualTo(0xE3069283);
        assertThat(TfRecordWriter.maskedCrc32c(check, 0, check.length)).isEqualTo(TfEventFileReader.masked(0xE3069283));
    }

    @Test
    void recordFramingIsLengthCrcDataCrc() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new TfRecordWriter(out).write(new byte[] {1, 2, 3});
        byte[] b = out.toByteArray();

        assertThat(b).hasSize(8 + 4 + 3 + 4);
        assertThat(b[0]).isEqualTo((byte) 3);
        assertThat(Arrays.copyOfRange(b, 1, 8)).containsOnly(0);
        assertThat(Arrays.copyOfRange(b, 12, 15)).containsExactly(1, 2, 3);
    }

    @Test
    void scalarsRoundTripThroughAnIndependentReader(@TempDir Path dir) throws IOException {
        TensorBoardSink sink = new TensorBoardSink(dir);
        sink.onEvent(new MetricEvent("r", "main", 0, 0, 1, 1_700_000_000_123L, 0.1, "train/loss", 2.5, null));
        sink.onEvent(new MetricEvent(
                "r", "main", 0, 0, 300, 1_700_000_001_000L, 1.0, "throughput/samples_per_s", 1234.5, "cpu"));
        sink.onEvent(new MetricEvent("r", "main", 0, 0, 301, 1_700_000_001_000L, 1.0, "train/loss", Double.NaN, null));
        sink.onEvent(new LifecycleEvent(
                "r", "main", 0, 0, 301, 1_700_000_001_000L, 1.0, LifecycleEvent.Kind.RUN_FINISHED, "done"));
        sink.onClose();

        assertThat(sink.file().getFileName().toString()).startsWith("events.out.tfevents.");
        List<TfEventFileReader.Event> events = TfEventFileReader.read(sink.file());
        assertThat(events).hasSize(3);
        assertThat(events.get(0).fileVersion()).isEqualTo("brain.Event:2");
        assertThat(events.get(1).tag()).isEqualTo("train/loss");
        assertThat(events.get(1).value()).isEqualTo(2.5f);
        assertThat(events.get(1).step()).isEqualTo(1);
        assertThat(events.get(1).wallTime()).isEqualTo(1_700_000_000.123);
        assertThat(events.get(2).tag()).isEqualTo("throughput/samples_per_s/cpu");
        assertThat(events.get(2).step()).isEqualTo(300);
    }

    @Test
    void aSecondSinkInTheSameFolderWritesASecondFile(@TempDir Path dir) throws IOException {
        new TensorBoardSink(dir).onClose();
        new TensorBoardSink(dir).onClose();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.count()).isEqualTo(2);
        }
    }

    @Test
    void aCorruptedRecordIsDetected(@TempDir Path dir) throws IOException {
        TensorBoardSink sink = new TensorBoardSink(dir);
        sink.onEvent(new MetricEvent("r", "s", 0, 0, 1, 1000, 0, "lr", 0.1, null));
        sink.onClose();
        byte[] bytes = Files.readAllBytes(sink.file());
        bytes[bytes.length - 6] ^= 1;
        Files.write(sink.file(), bytes);

        assertThatThrownBy(() -> TfEventFileReader.read(sink.file())).hasMessageContaining("bad data CRC");
    }
}
