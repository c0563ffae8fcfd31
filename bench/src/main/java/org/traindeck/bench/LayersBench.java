package org.traindeck.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.traindeck.app.layers.LayersViewModel;
import org.traindeck.app.run.Dashboard;
import org.traindeck.engine.events.HistogramEvent;
import org.traindeck.engine.events.LayerMetrics;
import org.traindeck.engine.events.LayerMetrics.Figure;
import org.traindeck.engine.events.MetricEvent;

/**
 * The Layers view in a real (headless) scene on a 100-layer network whose run has logged 100,000 steps: every layer's
 * six figures on each of 10 new steps per 100 ms tick (6,000 events), and weight and gradient histograms every second,
 * applied and redrawn as the window's timer does. Measures the interval between painted frames (against 33 ms) and
 * the FX thread's time per tick.
 */
final class LayersBench {

    private static final int LAYERS = 100;
    private static final long LOGGED = 100_000;

    private LayersBench() {}

    private static final String[][] NAMES = new String[LAYERS][Figure.values().length];

    static {
        for (int i = 0; i < LAYERS; i++) {
            for (Figure f : Figure.values()) {
                NAMES[i][f.ordinal()] = LayerMetrics.name(node(i), f);
            }
        }
    }

    private static String node(int i) {
        return String.format(Locale.ROOT, "block%02d/%s", i / 2, i % 2 == 0 ? "conv" : "norm");
    }

    private static MetricEvent metric(int layer, Figure f, long step, double value) {
        return new MetricEvent("bench", "main", 0, 0, step, step, step * 0.01, NAMES[layer][f.ordinal()], value, null);
    }

    private static HistogramEvent histogram(int layer, String quantity, long step, Random random) {
        double[] limits = new double[64];
        double[] counts = new double[64];
        for (int b = 0; b < 64; b++) {
            limits[b] = -0.32 + 0.01 * (b + 1);
            counts[b] = Math.round(4096 * Math.exp(-Math.pow((b - 31.5) / 10, 2) / 2) / 25 + random.nextInt(3));
        }
        return new HistogramEvent(
                "bench",
                "main",
                0,
                0,
                step,
                step,
                step * 0.01,
                node(layer),
                quantity,
                -0.32,
                0.32,
                4096,
                0,
                4096 * 0.01,
                limits,
                counts);
    }

    static void run(Report report) throws Exception {
        ChartBench.startFx();
        Dashboard dashboard = FxFrames.onFx(LayersBench::showDashboard);
        Random random = new Random(1);
        LayersViewModel model = dashboard.layers().model();
        FxFrames.onFx(() -> {
            logRunSoFar(dashboard, model, random);
            return null;
        });
        List<Double> updates = new ArrayList<>();
        FxFrames frames = FxFrames.count();
        long step = LOGGED;
        for (int tick = 0; tick < 40; tick++) {
            Thread.sleep(100);
            step = offerTick(dashboard, step, random);
            if (tick % 10 == 0) {
                offerHistograms(dashboard, step, random);
            }
            updates.add(FxFrames.onFx(() -> drainAndRedrawMs(dashboard)));
        }
        report(
                report,
                frames.stop(),
                Stats.of(updates.stream().mapToDouble(Double::doubleValue).toArray()),
                model,
                step);
        Platform.runLater(() -> dashboard.getScene().getWindow().hide());
    }

    /** The dashboard in a window of its own, on its Layers tab. */
    private static Dashboard showDashboard() {
        Dashboard d = new Dashboard();
        Stage s = new Stage();
        s.setScene(new Scene(d, 1200, 800));
        s.show();
        d.chartsOrLayers().getSelectionModel().select(1);
        return d;
    }

    /** The run so far, straight into the model (the dashboard's queue takes at most 50,000 events a tick). */
    private static void logRunSoFar(Dashboard dashboard, LayersViewModel model, Random random) {
        for (long step = 0; step < LOGGED; step++) {
            for (int i = 0; i < LAYERS; i++) {
                model.accept(metric(i, Figure.UPDATE_RATIO, step, 1e-3 * Math.exp(random.nextGaussian())));
            }
        }
        dashboard.refreshCharts();
    }

    /** Every layer's figures on 10 new steps; returns the step after them. */
    private static long offerTick(Dashboard dashboard, long first, Random random) {
        long step = first;
        for (int k = 0; k < 10; k++, step++) {
            for (int i = 0; i < LAYERS; i++) {
                for (Figure f : Figure.values()) {
                    double value =
                            f == Figure.UPDATE_RATIO ? 1e-3 * Math.exp(random.nextGaussian()) : random.nextDouble();
                    dashboard.offer(metric(i, f, step, value));
                }
            }
        }
        return step;
    }

    private static void offerHistograms(Dashboard dashboard, long step, Random random) {
        for (int i = 0; i < LAYERS; i++) {
            dashboard.offer(histogram(i, HistogramEvent.WEIGHTS, step, random));
            dashboard.offer(histogram(i, HistogramEvent.GRADIENTS, step, random));
        }
    }

    /** What the window's timer does each tick, and the milliseconds it took on the FX thread. */
    private static double drainAndRedrawMs(Dashboard dashboard) {
        long t = System.nanoTime();
        dashboard.drain(50_000);
        dashboard.refreshCharts();
        return (System.nanoTime() - t) / 1e6;
    }

    private static void report(Report report, Stats frames, Stats updates, LayersViewModel model, long step) {
        report.add(
                "layers view",
                String.format(
                        Locale.ROOT,
                        "%d layers, %,d steps logged, 6,000 events a tick; interval between" + " painted frames",
                        LAYERS,
                        step),
                frames.format("ms", 1),
                "33 ms (30 frames a second)",
                Report.ratio(frames.median() / 33.0)
                        + String.format(
                                Locale.ROOT,
                                " (FX tick %.1f ms median, %.1f max; heat map %d" + " columns, %d KiB)",
                                updates.median(),
                                updates.max(),
                                model.grid().columns(),
                                model.grid().memoryBytes() / 1024),
                "≤ 33 ms");
    }
}
