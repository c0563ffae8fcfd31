package org.traindeck.engine.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.MetricEvent;

class TensorBoardHistogramTest {

    @Test
    void aHistogramEventIsWrittenAsATensorBoardHistogramSummary(@TempDir Path dir) throws IOException {
        TensorBoardSink sink = new TensorBoardSink(dir);
        sink.onEvent(new MetricEvent("r", "main", 0, 0, 40, 1_700_000_000_000L, 1.0, "train/loss", 0.5, null));
        sink.onEvent(new HistogramEvent(
                "r",
                "main",
                0,
                0,
                40,
                1_700_000_000_250L,
                1.0,
                "block1/attn",
                HistogramEvent.GRADIENTS,
                -0.5,
                2.0,
                7,
                3.25,
                6.5,
                new double[] {0, 1, 2},
                new double[] {3, 2, 2}));
        sink.onClose();

        List<TfHistogramReader.Histogram> all = TfHistogramReader.read(sink.file());
        assertThat(all).hasSize(1);
        TfHistogramReader.Histogram h = all.get(0);
        assertThat(h.tag()).isEqualTo("layer/block1/attn/gradients");
        assertThat(h.step()).isEqualTo(40);
        assertThat(h.wallTime()).isEqualTo(1_700_000_000.25);
        assertThat(h.min()).isEqualTo(-0.5);
        assertThat(h.max()).isEqualTo(2.0);
        assertThat(h.num()).isEqualTo(7);
        assertThat(h.sum()).isEqualTo(3.25);
        assertThat(h.sumSquares()).isEqualTo(6.5);
        assertThat(h.bucketLimits()).containsExactly(0, 1, 2);
        assertThat(h.buckets()).containsExactly(3, 2, 2);
        // the scalar beside it still reads as before
        assertThat(TfEventFileReader.records(sink.file())).hasSize(3);
    }
}
