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
        Dashboard dashboard = FxFrames.onFx(() -> {
            Dashboard d = new Dashboard();
            Stage s = new Stage();
            s.setScene(new Scene(d, 1200, 800));
            s.show();
            d.chartsOrLayers().getSelectionModel().select(1);
            return d;
        });
        Random random = new Random(1);
        LayersViewModel model = dashboard.layers().model();
        // the run so far, straight into the model (the dashboard's queue takes at most 50,000 events a tick)
        FxFrames.onFx(() -> {
            for (long step = 0; step < LOGGED; step++) {
                for (int i = 0; i < LAYERS; i++) {
                    model.accept(metric(i, Figure.UPDATE_RATIO, step, 1e-3 * Math.exp(random.nextGaussian())));
                }
            }
            dashboard.refreshCharts();
            return null;
        });
        List<Double> updates = new ArrayList<>();
        FxFrames frames = FxFrames.count();
        long step = LOGGED;
        for (int tick = 0; tick < 40; tick++) {
            Thread.sleep(100);
            for (int k = 0; k < 10; k++, step++) {
                for (int i = 0; i < LAYERS; i++) {
                    for (Figure f : Figure.values()) {
                        dashboard.offer(metric(
                                i,
                                f,
                                step,
                                f == Figure.UPDATE_RATIO
                                        ? 1e-3 * Math.exp(random.nextGaussian())
                                        : random.nextDouble()));
                    }
                }
            }
            if (tick % 10 == 0) {
                for (int i = 0; i < LAYERS; i++) {
                    dashboard.offer(histogram(i, HistogramEvent.WEIGHTS, step, random));
                    dashboard.offer(histogram(i, HistogramEvent.GRADIENTS, step, random));
                }
            }
            double ms = FxFrames.onFx(() -> {
                long t = System.nanoTime();
                dashboard.drain(50_000);
                dashboard.refreshCharts();
                return (System.nanoTime() - t) / 1e6;
            });
            updates.add(ms);
        }
        Stats f = frames.stop();
        Stats u = Stats.of(updates.stream().mapToDouble(Double::doubleValue).toArray());
        report.add(
                "layers view",
                String.format(
                        Locale.ROOT,
                        "%d layers, %,d steps logged, 6,000 events a tick; interval between" + " painted frames",
                        LAYERS,
                        step),
                f.format("ms", 1),
                "33 ms (30 frames a second)",
                Report.ratio(f.median() / 33.0)
                        + String.format(
                                Locale.ROOT,
                                " (FX tick %.1f ms median, %.1f max; heat map %d" + " columns, %d KiB)",
                                u.median(),
                                u.max(),
                                model.grid().columns(),
                                model.grid().memoryBytes() / 1024),
                "≤ 33 ms");
        Platform.runLater(() -> dashboard.getScene().getWindow().hide());
    }
}
