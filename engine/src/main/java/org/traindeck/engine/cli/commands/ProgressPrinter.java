package org.traindeck.engine.cli.commands;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/**
 * The terminal view of a run: a progress bar per epoch (stage, epoch, loss, samples/s, ETA) redrawn in place on a
 * terminal, and one summary line per epoch (the only output when stdout is not a terminal, as in CI logs).
 */
final class ProgressPrinter implements EventListener {

    private static final int BAR = 24;

    private final PrintStream out;
    private final RunConfig config;
    private final boolean terminal;
    private long stepsPerEpoch = 1;
    private long epochFirstStep;
    private double loss = Double.NaN;
    private double throughput = Double.NaN;
    private long lastDraw;
    private boolean barShown;
    private final Map<String, Double> epochMetrics = new LinkedHashMap<>();

    ProgressPrinter(PrintStream out, RunConfig config, boolean terminal) {
        this.out = out;
        this.config = config;
        this.terminal = terminal;
    }

    @Override
    public void onEvent(EngineEvent event) {
        if (event instanceof MetricEvent m) {
            switch (m.name()) {
                case MetricNames.STEPS_PER_EPOCH -> {
                    stepsPerEpoch = Math.max(1, (long) m.value());
                    epochFirstStep = m.step();
                }
                case MetricNames.TRAIN_LOSS -> loss = m.value();
                case MetricNames.THROUGHPUT -> {
                    if (m.device() == null) {
                        throughput = m.value();
                        drawBar(m);
                    }
                }
                case MetricNames.TRAIN_EPOCH_LOSS,
                        MetricNames.VAL_LOSS,
                        MetricNames.VAL_ACCURACY,
                        MetricNames.VAL_MSE,
                        MetricNames.VAL_MAE,
                        MetricNames.VAL_PSNR,
                        MetricNames.VAL_PROJECTION_ERROR,
                        MetricNames.EPOCH_TIME,
                        MetricNames.EPOCH_THROUGHPUT -> epochMetrics.put(m.name(), m.value());
                case MetricNames.VAL_EMA_LOSS, MetricNames.VAL_EMA_ACCURACY -> epochMetrics.put(m.name(), m.value());
                default -> {}
            }
            return;
        }
        if (!(event instanceof LifecycleEvent l)) {
            return; // layer histograms: the files and the app show them
        }
        switch (l.kind()) {
            case EPOCH_FINISHED -> {
                clearBar();
                out.println(epochLine(l));
                epochMetrics.clear();
                epochFirstStep = l.step();
            }
            case STAGE_STARTED, WARNING, FILE_WRITE_FAILED -> {
                clearBar();
                out.println(l.kind() == LifecycleEvent.Kind.STAGE_STARTED ? l.message() : "warning: " + l.message());
            }
            case RUN_STARTED, RUN_RESUMED -> out.println(l.message());
            default -> clearBar();
        }
        out.flush();
    }

    private String epochLine(LifecycleEvent l) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "[%s] epoch %d/%d",
                l.stage(),
                l.epoch() + 1,
                config.stages().get(l.stageIndex()).epochs()));
        append(b, "loss", epochMetrics.get(MetricNames.TRAIN_EPOCH_LOSS), "%.4f");
        append(b, "val_loss", epochMetrics.get(MetricNames.VAL_LOSS), "%.4f");
        Double acc = epochMetrics.get(MetricNames.VAL_ACCURACY);
        if (acc != null) {
            b.append(String.format(Locale.ROOT, "  val_acc %.2f%%", acc * 100));
        }
        append(b, "val_ema_loss", epochMetrics.get(MetricNames.VAL_EMA_LOSS), "%.4f");
        Double emaAcc = epochMetrics.get(MetricNames.VAL_EMA_ACCURACY);
        if (emaAcc != null) {
            b.append(String.format(Locale.ROOT, "  val_ema_acc %.2f%%", emaAcc * 100));
        }
        append(b, "val_mae", epochMetrics.get(MetricNames.VAL_MAE), "%.4f");
        append(b, "val_pixel_acc", epochMetrics.get(MetricNames.VAL_PIXEL_ACCURACY), "%.4f");
        append(b, "val_mean_iou", epochMetrics.get(MetricNames.VAL_MEAN_IOU), "%.4f");
        append(
                b,
                "val_mse",
                // an autoencoder's PSNR is of its MSE; a diffusion model's, of its samples (it has a val_mae)
                epochMetrics.containsKey(MetricNames.VAL_PSNR) && !epochMetrics.containsKey(MetricNames.VAL_MAE)
                        ? epochMetrics.get(MetricNames.VAL_MSE)
                        : null,
                "%.5f");
        append(b, "val_psnr", epochMetrics.get(MetricNames.VAL_PSNR), "%.2f dB");
        append(b, "val_proj_err", epochMetrics.get(MetricNames.VAL_PROJECTION_ERROR), "%.4g");
        append(b, "val_ppl", epochMetrics.get(MetricNames.VAL_PERPLEXITY), "%.3f");
        // the epoch's figure: the last window's can be far off (a fast last step after slow ones)
        append(b, "samples/s", epochMetrics.get(MetricNames.EPOCH_THROUGHPUT), "%.0f");
        Double time = epochMetrics.get(MetricNames.EPOCH_TIME);
        if (time != null) {
            b.append(String.format(Locale.ROOT, "  %.1fs", time));
        }
        return b.toString();
    }

    private static void append(StringBuilder b, String label, Double value, String format) {
        if (value != null && !value.isNaN()) {
            b.append("  ").append(label).append(' ').append(String.format(Locale.ROOT, format, value));
        }
    }

    private void drawBar(MetricEvent m) {
        if (!terminal) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastDraw < 100_000_000L) {
            return;
        }
        lastDraw = now;
        long done = Math.min(stepsPerEpoch, m.step() - epochFirstStep);
        int filled = (int) (BAR * done / stepsPerEpoch);
        double stepsPerSecond = Double.isNaN(throughput)
                ? 0
                : throughput
                        / config.stages().get(m.stageIndex()).batchSize()
                        / config.stages().get(m.stageIndex()).accumulationSteps();
        long eta = stepsPerSecond > 0 ? Math.round((stepsPerEpoch - done) / stepsPerSecond) : -1;
        String line = String.format(
                Locale.ROOT,
                "\r[%s] epoch %d/%d |%s%s| %3d%%  loss %.4f  %.0f samples/s  ETA %s   ",
                m.stage(),
                m.epoch() + 1,
                config.stages().get(m.stageIndex()).epochs(),
                "#".repeat(filled),
                ".".repeat(BAR - filled),
                100 * done / stepsPerEpoch,
                loss,
                throughput,
                eta < 0 ? "?" : String.format(Locale.ROOT, "%d:%02d", eta / 60, eta % 60));
        out.print(line);
        out.flush();
        barShown = true;
    }

    private void clearBar() {
        if (barShown) {
            out.print("\r" + " ".repeat(100) + "\r");
            barShown = false;
        }
    }
}
