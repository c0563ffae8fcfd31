package org.traindeck.engine.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

class ProgressPrinterTest {

    private static final String CONFIG = """
            {"name": "p", "model": {"type": "mlp", "hidden": [4]},
             "data": {"train": {"type": "synthetic", "samples": 16, "features": 4, "numClasses": 2}},
             "stages": [{"epochs": 1, "batchSize": 4}]}
            """;

    @Test
    void aRunWithLayerHistogramsPrintsItsProgressWithoutFailing() {
        RunConfig config = Configs.parse(CONFIG, Path.of(".")).orThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ProgressPrinter printer =
                new ProgressPrinter(new PrintStream(out, true, StandardCharsets.UTF_8), config, false);

        // histograms reach every subscriber of a run with logging.layers on, the progress printer included
        assertThatCode(() -> printer.onEvent(new HistogramEvent(
                        "p",
                        "main",
                        0,
                        0,
                        500,
                        1_700_000_000_000L,
                        1.0,
                        "dense0",
                        HistogramEvent.WEIGHTS,
                        -1,
                        1,
                        4,
                        0,
                        2,
                        new double[] {0, 1},
                        new double[] {2, 2})))
                .doesNotThrowAnyException();
        printer.onEvent(new LifecycleEvent(
                "p", "main", 0, 0, 0, 1_700_000_000_000L, 0, LifecycleEvent.Kind.RUN_STARTED, "run p started"));

        assertThat(out.toString(StandardCharsets.UTF_8)).contains("run p started");
    }

    /** Issue 35: an epoch of slow steps that ended with a fast one was printed at the last step's rate. */
    @Test
    void theEpochLineGivesTheEpochsSamplesPerSecondNotTheLastStepsOne() {
        RunConfig config = Configs.parse(CONFIG, Path.of(".")).orThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ProgressPrinter printer =
                new ProgressPrinter(new PrintStream(out, true, StandardCharsets.UTF_8), config, false);

        for (int step = 1; step <= 4; step++) {
            printer.onEvent(metric(step, "throughput/samples_per_s", step < 4 ? 30 : 199));
        }
        printer.onEvent(metric(4, "time/epoch_s", 16 / 34.0));
        printer.onEvent(metric(4, "throughput/epoch_samples_per_s", 34));
        printer.onEvent(new LifecycleEvent(
                "p", "main", 0, 0, 4, 1_700_000_000_000L, 1, LifecycleEvent.Kind.EPOCH_FINISHED, "epoch 1/1"));

        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("samples/s 34 ")
                .doesNotContain("199");
    }

    /** A segmentation's and a language model's figures were measured, sent and never printed. */
    @Test
    void theEpochLineGivesEveryTaskMetricTheRunPublishes() {
        RunConfig config = Configs.parse(CONFIG, Path.of(".")).orThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ProgressPrinter printer =
                new ProgressPrinter(new PrintStream(out, true, StandardCharsets.UTF_8), config, false);

        printer.onEvent(metric(4, MetricNames.VAL_PIXEL_ACCURACY, 0.91234));
        printer.onEvent(metric(4, MetricNames.VAL_MEAN_IOU, 0.75));
        printer.onEvent(metric(4, MetricNames.ofEma(MetricNames.VAL_MEAN_IOU), 0.8));
        printer.onEvent(metric(4, MetricNames.VAL_PERPLEXITY, 12.3456));
        printer.onEvent(metric(4, MetricNames.VAL_ACCURACY, 0.5));
        printer.onEvent(new LifecycleEvent(
                "p", "main", 0, 0, 4, 1_700_000_000_000L, 1, LifecycleEvent.Kind.EPOCH_FINISHED, "epoch 1/1"));

        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains(
                        "val_pixel_acc 0.9123",
                        "val_mean_iou 0.7500",
                        "val_ema_mean_iou 0.8000",
                        "val_ppl 12.346",
                        "val_acc 50.00");
    }

    private static MetricEvent metric(long step, String name, double value) {
        return new MetricEvent("p", "main", 0, 0, step, 1_700_000_000_000L, step, name, value, null);
    }
}
