package org.traindeck.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.traindeck.app.charts.SeriesBuffer;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.sinks.CsvSink;
import org.traindeck.engine.sinks.JsonlSink;
import org.traindeck.engine.sinks.RunLogSink;
import org.traindeck.engine.sinks.TensorBoardSink;

/**
 * The metric pipeline: how many events per second the sinks of a run (JSONL, CSV, TensorBoard, log) and one UI
 * subscriber absorb, against how many the fastest training run produces; and the memory a million chart points take.
 */
final class PipelineBench {

    static final int EVENTS = 400_000;

    static double sinkThroughput(Path dir) throws Exception {
        Files.createDirectories(dir);
        EventBus bus = new EventBus();
        bus.subscribe(new RunLogSink(dir.resolve("train.log")), EventBus.Delivery.LOSSLESS);
        bus.subscribe(new JsonlSink(dir.resolve("metrics.jsonl")), EventBus.Delivery.LOSSLESS);
        bus.subscribe(new CsvSink(dir.resolve("metrics.csv")), EventBus.Delivery.LOSSLESS);
        bus.subscribe(new TensorBoardSink(dir.resolve("tensorboard")), EventBus.Delivery.LOSSLESS);
        AtomicLong ui = new AtomicLong();
        bus.subscribe(e -> ui.incrementAndGet(), EventBus.Delivery.DROP_WHEN_BEHIND);
        long start = System.nanoTime();
        for (int i = 0; i < EVENTS; i++) {
            bus.publish(new MetricEvent(
                    "bench",
                    "main",
                    0,
                    i / 1000,
                    i,
                    System.currentTimeMillis(),
                    i / 1000.0,
                    i % 2 == 0 ? MetricNames.TRAIN_LOSS : MetricNames.LR,
                    1.0 / (i + 1),
                    null));
        }
        bus.close(600_000);
        return EVENTS / ((System.nanoTime() - start) / 1e9);
    }

    static void run(Path out, double fastestSamplesPerSecond, int batch, Report report) throws Exception {
        double[] rates = new double[3];
        for (int i = 0; i < rates.length; i++) {
            rates[i] = sinkThroughput(out.resolve("pipe" + i));
        }
        Stats s = Stats.of(rates);
        // per step a run publishes train/loss, lr, grad_norm and throughput (per device adds one more)
        double needed = 4 * fastestSamplesPerSecond / batch;
        report.add(
                "metric pipeline",
                "events/s into all sinks + UI",
                s.format("events/s", 0),
                String.format(Locale.ROOT, "%.0f events/s produced by the fastest run here", needed),
                Report.ratio(s.median() / needed) + " headroom",
                "≫ 1×");

        SeriesBuffer buffer = new SeriesBuffer();
        for (int i = 0; i < 1_000_000; i++) {
            buffer.add(i, i / 1000.0, Math.sin(i));
        }
        double perMillion = buffer.memoryBytes() / 1e6;
        report.add(
                "metric pipeline",
                "memory per million stored points (one series)",
                String.format(Locale.ROOT, "%.1f MB", perMillion),
                "24.0 MB (3 doubles per point, no slack)",
                Report.ratio(perMillion / 24.0)
                        + " (array growth by doubling, block summaries; a smoothed line doubles it)",
                "primitive arrays only");
        if (buffer.size() != 1_000_000) {
            throw new IllegalStateException();
        }
    }
}
