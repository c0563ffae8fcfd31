package org.traindeck.engine.cli.commands;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.Metric;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.MetricRoute.View;
import org.traindeck.engine.events.MetricTable;

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
            metric(m);
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

    private void metric(MetricEvent m) {
        Metric metric = MetricTable.of(m.name());
        switch (metric.route()) {
            case STEPS_PER_EPOCH -> {
                stepsPerEpoch = Math.max(1, (long) m.value());
                epochFirstStep = m.step();
            }
            case TRAIN_LOSS -> loss = m.value();
            case THROUGHPUT -> {
                if (m.device() == null) {
                    throughput = m.value();
                    drawBar(m);
                }
            }
            default -> {
                if (metric.shows(View.EPOCH_FIGURES) && m.device() == null) {
                    epochMetrics.put(m.name(), m.value());
                }
            }
        }
    }

    private String epochLine(LifecycleEvent l) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "[%s] epoch %d/%d",
                l.stage(),
                l.epoch() + 1,
                config.stages().get(l.stageIndex()).epochs()));
        for (Metric metric : MetricTable.all()) {
            Double value = epochMetrics.get(metric.name());
            if (value != null && !value.isNaN() && shownOnTheLine(metric)) {
                b.append("  ");
                if (!metric.brief().isEmpty()) {
                    b.append(metric.brief()).append(' ');
                }
                b.append(metric.format().write(value));
            }
        }
        return b.toString();
    }

    /** A regression's MSE is its loss; an autoencoder's beside its PSNR (a diffusion model's PSNR has a MAE beside). */
    private boolean shownOnTheLine(Metric metric) {
        return !metric.name().equals(MetricNames.VAL_MSE)
                || epochMetrics.containsKey(MetricNames.VAL_PSNR) && !epochMetrics.containsKey(MetricNames.VAL_MAE);
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
