package org.traindeck.engine.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/** train.log's epoch figures are the metric table's: a segmentation's and a language model's were left out. */
class RunLogSinkTest {

    @Test
    void theLogGivesEveryEpochFigureTheTableListsAndNoStepFigure(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("train.log");
        RunLogSink sink = new RunLogSink(log);
        for (String name : new String[] {
            MetricNames.VAL_MEAN_IOU,
            MetricNames.VAL_PIXEL_ACCURACY,
            MetricNames.VAL_PERPLEXITY,
            MetricNames.ofEma(MetricNames.VAL_PSNR),
            MetricNames.VAL_ACCURACY,
            MetricNames.TRAIN_LOSS,
            LayerMetrics.name("dense0", LayerMetrics.Figure.values()[0])
        }) {
            sink.onEvent(new MetricEvent("r", "main", 0, 0, 8, 1_700_000_000_000L, 1.5, name, 0.625, null));
        }
        sink.onClose();

        assertThat(Files.readString(log))
                .contains(
                        MetricNames.VAL_MEAN_IOU + " = 0.625",
                        MetricNames.VAL_PIXEL_ACCURACY + " = 0.625",
                        MetricNames.VAL_PERPLEXITY + " = 0.625",
                        MetricNames.ofEma(MetricNames.VAL_PSNR) + " = 0.625",
                        MetricNames.VAL_ACCURACY + " = 0.625")
                .doesNotContain(MetricNames.TRAIN_LOSS + " =", LayerMetrics.PREFIX);
    }
}
