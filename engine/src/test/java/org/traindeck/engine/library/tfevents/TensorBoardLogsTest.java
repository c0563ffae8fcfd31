package org.traindeck.engine.library.tfevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.library.ImportedRun;
import org.traindeck.engine.api.library.TagMapping;
import org.traindeck.engine.api.library.TagSeries;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.sinks.TensorBoardSink;
import org.traindeck.engine.sinks.TfEventFileReader;

/** Event files laid out as PyTorch's SummaryWriter and TensorFlow's writers lay them out, read as a run. */
class TensorBoardLogsTest {

    private static final double T0 = 1_764_378_000.25;

    @TempDir
    Path dir;

    /** PyTorch's SummaryWriter: the version record, then per step one event per add_scalar (loss, lr; val every 10). */
    private static EventFixtures pytorchRun(int fromStep, int toStep, double t0, float offset) {
        EventFixtures f = new EventFixtures().fileVersion(t0);
        for (int step = fromStep; step < toStep; step++) {
            double t = t0 + 0.5 * (step - fromStep + 1);
            f.simpleValue(t, step, "Loss/train", 2.0f - step * 0.01f + offset);
            f.simpleValue(t, step, "lr", 0.1f);
            if (step % 10 == 9) {
                f.simpleValue(t, step, "Loss/val", 2.1f - step * 0.01f + offset);
            }
        }
        return f;
    }

    @Test
    void aPyTorchFolderReadsAsARunWithEveryTagAndStep() throws Exception {
        Path run = dir.resolve("runs/Nov29_01-00-00_host");
        pytorchRun(0, 30, T0, 0).writeTo(run, EventFixtures.fileName(1_764_378_000L, ""));

        ImportedRun r = TensorBoardLogs.open(run);

        assertThat(r.name()).isEqualTo("Nov29_01-00-00_host");
        assertThat(r.tags()).containsOnlyKeys("Loss/train", "lr", "Loss/val");
        assertThat(r.startedMillis()).isEqualTo(Math.round(T0 * 1000));
        TagSeries train = r.tags().get("Loss/train");
        assertThat(train.size()).isEqualTo(30);
        assertThat(train.steps()[29]).isEqualTo(29);
        assertThat(train.values()[29]).isEqualTo(2.0f - 29 * 0.01f);
        assertThat(r.tags().get("Loss/val").steps()).containsExactly(9, 19, 29);
        assertThat(r.steps()).isEqualTo(29);
        assertThat(r.elapsedSeconds()).isCloseTo(15.0, within(1e-6));
        assertThat(r.notes()).isEmpty();
        // a single file reads the same, named by its folder
        ImportedRun file = TensorBoardLogs.open(r.files().get(0));
        assertThat(file.name()).isEqualTo(r.name());
        assertThat(file.tags().get("Loss/val").values())
                .containsExactly(r.tags().get("Loss/val").values());
    }

    @Test
    void tensorScalarsOfTensorFlow2AndPyTorchNewStyleAreReadAndOtherSummariesSkipped() throws Exception {
        EventFixtures f = new EventFixtures().fileVersion(T0);
        for (int step = 0; step < 5; step++) {
            f.tensorContent(T0 + step, step, "epoch_loss", 1.5f - step / 10f);
            f.floatValTensor(T0 + step, step, "accuracy", 0.5f + step / 10f);
            f.histogramTensor(T0 + step, step, "dense/kernel");
            f.textTensor(T0 + step, step, "notes", "step " + step);
            f.histo(T0 + step, step, "old/histo");
            f.simpleValues(T0 + step, step, new String[] {"a", "b"}, new float[] {step, -step});
        }
        Path file = f.writeTo(dir.resolve("train"), EventFixtures.fileName(1_764_378_000L, ".v2"));

        ImportedRun r = TensorBoardLogs.open(file);

        assertThat(r.tags()).containsOnlyKeys("epoch_loss", "accuracy", "a", "b");
        assertThat(r.tags().get("epoch_loss").values()[4]).isEqualTo(1.5f - 4 / 10f);
        assertThat(r.tags().get("accuracy").values()[2]).isEqualTo(0.5f + 2 / 10f);
        assertThat(r.tags().get("b").values()).containsExactly(0, -1, -2, -3, -4);
    }

    @Test
    void aResumedRunsSecondFileReplacesThePointsAfterItsRestart() throws Exception {
        Path run = dir.resolve("resumed");
        // the first attempt reached step 29; the second resumed from the checkpoint at step 20 and ran to 39
        pytorchRun(0, 30, T0, 0).writeTo(run, EventFixtures.fileName(1_764_378_000L, ""));
        pytorchRun(20, 40, T0 + 600, 1000).writeTo(run, EventFixtures.fileName(1_764_378_600L, ""));

        ImportedRun r = TensorBoardLogs.open(run);

        assertThat(r.files()).hasSize(2);
        TagSeries train = r.tags().get("Loss/train");
        long[] expected = new long[40];
        Arrays.setAll(expected, i -> i);
        assertThat(train.steps()).containsExactly(expected);
        assertThat(train.values()[19]).isEqualTo(2.0f - 19 * 0.01f);
        assertThat(train.values()[20]).isEqualTo(2.0f - 20 * 0.01f + 1000);
        assertThat(r.tags().get("Loss/val").steps()).containsExactly(9, 19, 29, 39);
        assertThat(r.tags().get("Loss/val").values()[2]).isEqualTo(2.1f - 29 * 0.01f + 1000);
        assertThat(r.notes()).singleElement().asString().contains("restart");
    }

    @Test
    void aSessionStartRestartsAsTensorBoardDoes() throws Exception {
        EventFixtures f = pytorchRun(0, 30, T0, 0);
        f.sessionStart(T0 + 100, 25);
        Path file = f.writeTo(dir.resolve("restarted"), EventFixtures.fileName(1_764_378_000L, ""));

        assertThat(TensorBoardLogs.open(file).tags().get("Loss/train").lastStep())
                .isEqualTo(24);
    }

    @Test
    void anIncompleteLastRecordIsLeftOutAndSaid() throws Exception {
        EventFixtures f = pytorchRun(0, 30, T0, 0);
        byte[] whole = f.bytes();
        int lastStart = f.recordOffsets.get(f.recordOffsets.size() - 1);
        // cut inside the last record's data, and inside its header
        for (int cut : new int[] {whole.length - 3, lastStart + 5}) {
            Path folder = dir.resolve("cut" + cut);
            Files.createDirectories(folder);
            Path file =
                    Files.write(folder.resolve(EventFixtures.fileName(1_764_378_000L, "")), Arrays.copyOf(whole, cut));

            ImportedRun r = TensorBoardLogs.open(file);

            // the last record was step 29's val loss; the others are all there
            assertThat(r.tags().get("Loss/val").steps()).containsExactly(9, 19);
            assertThat(r.tags().get("Loss/train").size()).isEqualTo(30);
            assertThat(r.notes())
                    .singleElement()
                    .asString()
                    .contains("from byte " + lastStart)
                    .contains("incomplete");
        }
    }

    @Test
    void aDamagedRecordIsAnErrorAtItsByte() throws Exception {
        EventFixtures f = pytorchRun(0, 30, T0, 0);
        int damaged = f.recordOffsets.get(7);
        byte[] data = f.bytes();
        data[damaged + 12 + 3] ^= 0x40;
        Path file = write("damaged", data);

        assertThatThrownBy(() -> TensorBoardLogs.open(file))
                .isInstanceOf(EventFileException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("byte " + damaged + ":")
                .hasMessageContaining("data checksum");

        byte[] length = f.bytes();
        length[damaged] ^= 0x01;
        Path lengthFile = write("damaged-length", length);
        assertThatThrownBy(() -> TensorBoardLogs.open(lengthFile))
                .isInstanceOf(EventFileException.class)
                .hasMessageContaining("byte " + damaged + ":")
                .hasMessageContaining("length checksum");
    }

    @Test
    void aHugeRecordIsRefusedBeforeAnythingIsAllocated() throws Exception {
        EventFixtures f = new EventFixtures().fileVersion(T0);
        byte[] length = EventFixtures.littleEndian(1L << 40, 8);
        byte[] hostile = new byte[f.bytes().length + 12];
        System.arraycopy(f.bytes(), 0, hostile, 0, f.bytes().length);
        System.arraycopy(length, 0, hostile, f.bytes().length, 8);
        byte[] crc = EventFixtures.littleEndian(TfEventFileReader.masked(TfEventFileReader.crc32c(length)), 4);
        System.arraycopy(crc, 0, hostile, f.bytes().length + 8, 4);
        Path file = write("huge", hostile);

        assertThatThrownBy(() -> TensorBoardLogs.open(file))
                .isInstanceOf(EventFileException.class)
                .hasMessageContaining("byte " + f.bytes().length + ":")
                .hasMessageContaining("1099511627776 bytes")
                .hasMessageContaining("refused");
    }

    @Test
    void tooManyPointsOrTagsAreRefusedWithTheLimit() throws Exception {
        Path file = pytorchRun(0, 30, T0, 0).writeTo(dir.resolve("big"), EventFixtures.fileName(1_764_378_000L, ""));

        assertThatThrownBy(() -> TensorBoardLogs.open(file, new ReadLimits(1 << 20, 50, 100)))
                .isInstanceOf(EventFileException.class)
                .hasMessageContaining("more than 50 scalar points");
        assertThatThrownBy(() -> TensorBoardLogs.open(file, new ReadLimits(1 << 20, 1000, 2)))
                .isInstanceOf(EventFileException.class)
                .hasMessageContaining("more than 2 scalar tags");
        assertThatThrownBy(() -> TensorBoardLogs.open(file, new ReadLimits(20, 1000, 100)))
                .isInstanceOf(EventFileException.class)
                .hasMessageContaining("refused");
    }

    @Test
    void aRecordThatIsNotAnEventIsAnErrorAtItsByte() throws Exception {
        // a summary field claiming 100 bytes where 2 follow, with correct checksums
        byte[] data = {0x2a, 100, 0x0a, 0x00};
        EventFixtures f = new EventFixtures().fileVersion(T0).record(data);
        Path file = write("garbage", f.bytes());
        int at = f.recordOffsets.get(1) + 12 + 2;

        assertThatThrownBy(() -> TensorBoardLogs.open(file))
                .isInstanceOf(EventFileException.class)
                .hasMessageContaining("byte " + at + ":")
                .hasMessageContaining("not a TensorBoard event");
    }

    @Test
    void aFolderWithoutEventFilesIsSaidSo() throws Exception {
        Files.createDirectories(dir.resolve("empty"));
        assertThatThrownBy(() -> TensorBoardLogs.open(dir.resolve("empty")))
                .isInstanceOf(EventFileException.class)
                .hasMessageContaining("no TensorBoard event files");
        assertThat(TensorBoardLogs.holdsEvents(dir.resolve("empty"))).isFalse();
    }

    @Test
    void theMappingNamesTagsAsTrainDeckMetricsOnTheirOwnElapsedTime() throws Exception {
        Path run = dir.resolve("mapped");
        pytorchRun(0, 20, T0, 0).writeTo(run, EventFixtures.fileName(1_764_378_000L, ""));
        ImportedRun r = TensorBoardLogs.open(run);

        TagMapping mapping = TagMapping.DEFAULT.with("Loss/val", "val/loss");
        assertThat(r.metrics(mapping))
                .containsEntry("Loss/train", "train/loss")
                .containsEntry("Loss/val", "val/loss")
                .containsEntry("lr", "lr");
        List<MetricEvent> events = new ArrayList<>();
        r.forEachEvent(mapping, events::add);
        assertThat(events).hasSize(42);
        MetricEvent first = events.get(0);
        assertThat(first.name()).isEqualTo("train/loss");
        assertThat(first.elapsedSeconds()).isCloseTo(0.5, within(1e-6));
        assertThat(first.device()).isNull();
        // two tags mapped to one metric: the second keeps its name
        assertThat(r.metrics(mapping.with("lr", "train/loss"))).containsEntry("lr", "lr");
    }

    @Test
    void aMappingIsReadFromTagEqualsMetricPairs() {
        TagMapping m = TagMapping.parse("my_loss=train/loss,\n acc = val/accuracy");
        assertThat(m.metricOf("my_loss")).isEqualTo("train/loss");
        assertThat(m.metricOf("acc")).isEqualTo("val/accuracy");
        assertThat(m.metricOf("loss")).isEqualTo("train/loss");
        assertThat(m.metricOf("other")).isEqualTo("other");
        assertThat(TagMapping.parse("")).isEqualTo(TagMapping.DEFAULT);
        assertThatThrownBy(() -> TagMapping.parse("loss"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"loss\" is not a tag mapping");
    }

    @Test
    void traindecksOwnTensorBoardFilesReadBack() throws Exception {
        Path folder = dir.resolve("own/tensorboard");
        TensorBoardSink sink = new TensorBoardSink(folder);
        for (int step = 1; step <= 5; step++) {
            sink.onEvent(
                    new MetricEvent("own", "main", 0, 0, step, 1_000L * step, step, "train/loss", 1.0 / step, null));
        }
        sink.onClose();
        ImportedRun r = TensorBoardLogs.open(folder);
        assertThat(r.tags().get("train/loss").values()).containsExactly(1.0f, 0.5f, (float) (1.0 / 3), 0.25f, 0.2f);
        assertThat(r.metrics(TagMapping.DEFAULT)).containsEntry("train/loss", "train/loss");
    }

    private Path write(String folder, byte[] bytes) throws Exception {
        Files.createDirectories(dir.resolve(folder));
        return Files.write(dir.resolve(folder).resolve(EventFixtures.fileName(1_764_378_000L, "")), bytes);
    }
}
