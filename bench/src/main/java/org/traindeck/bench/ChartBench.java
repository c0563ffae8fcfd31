package org.traindeck.bench;

import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.app.charts.SeriesBuffer;

/**
 * The chart pipeline in a real (headless) JavaFX scene: four series of 10k, 100k and 1M points, with 1,000 new points
 * a second arriving and a redraw every 100 ms, as the dashboard does. Measures the time between painted frames under
 * Prism's software pipeline (judged against 33 ms) and the FX thread's time per update.
 */
final class ChartBench {

    private ChartBench() {}

    private static boolean fxStarted;

    /** Starts headless JavaFX once (the chart and layers groups both need it). */
    static synchronized void startFx() throws InterruptedException {
        if (fxStarted) {
            return;
        }
        fxStarted = true;
        System.setProperty("glass.platform", "Monocle");
        System.setProperty("monocle.platform", "Headless");
        System.setProperty("prism.order", "sw");
        System.setProperty("headless.geometry", "1920x1200-32");
        CountDownLatch started = new CountDownLatch(1);
        Platform.startup(started::countDown);
        started.await(30, TimeUnit.SECONDS);
    }

    static void run(Report report) throws Exception {
        startFx();
        Stage stage = FxFrames.onFx(() -> {
            Stage s = new Stage();
            s.setScene(new Scene(new StackPane(), 1200, 700));
            s.show();
            return s;
        });
        for (int perSeries : new int[] {10_000, 100_000, 1_000_000}) {
            LiveChart chart = FxFrames.onFx(() -> newChart(stage));
            FxFrames.onFx(() -> {
                fill(chart, perSeries);
                return null;
            });
            List<Double> updates = new ArrayList<>();
            FxFrames frames = FxFrames.count();
            for (int tick = 0; tick < 30; tick++) {
                Thread.sleep(100);
                updates.add(FxFrames.onFx(() -> addAndRedrawMs(chart)));
            }
            Stats f = frames.stop();
            System.gc();
            Runtime rt = Runtime.getRuntime();
            double heapMib = (rt.totalMemory() - rt.freeMemory()) / 1048576.0;
            Stats u = Stats.of(updates.stream().mapToDouble(Double::doubleValue).toArray());
            report(report, perSeries, f, u, heapMib, chart.drawnPoints());
        }
        Platform.runLater(stage::close);
    }

    /** A new, empty chart in place of the stage's last one. */
    private static LiveChart newChart(Stage stage) {
        LiveChart chart = new LiveChart("bench", "value", false);
        ((StackPane) stage.getScene().getRoot()).getChildren().setAll(chart);
        return chart;
    }

    /** Four series of {@code perSeries} points each, drawn once. */
    private static void fill(LiveChart chart, int perSeries) {
        for (int s = 0; s < 4; s++) {
            SeriesBuffer b = chart.series("s" + s, "series " + s, new Color(50 * s, 90, 170), false);
            for (int i = 0; i < perSeries; i++) {
                b.add(i, i / 1000.0, Math.sin(i / 3000.0 + s) + 0.1 * Math.cos(i * 0.7));
            }
        }
        chart.refresh();
    }

    /** A tick's 100 new points per series, and the milliseconds the redraw took on the FX thread. */
    private static double addAndRedrawMs(LiveChart chart) {
        for (int s = 0; s < 4; s++) {
            SeriesBuffer b = chart.data("s" + s);
            for (int i = 0; i < 100; i++) {
                b.add(b.size(), b.size() / 1000.0, Math.sin(b.size() / 3000.0));
            }
        }
        long t = System.nanoTime();
        chart.refresh();
        return (System.nanoTime() - t) / 1e6;
    }

    /**
     * What the user sees: the interval between painted frames (Prism's software pipeline, as on CI and on Linux
     * desktops without GPU drivers), with the FX thread's time per chart update beside it.
     */
    private static void report(Report report, int perSeries, Stats frames, Stats updates, double heapMib, long drawn) {
        report.add(
                "chart pipeline",
                String.format(Locale.ROOT, "4 × %,d points, interval between painted frames", perSeries),
                frames.format("ms", 1),
                "33 ms (30 frames a second)",
                Report.ratio(frames.median() / 33.0)
                        + String.format(
                                Locale.ROOT,
                                " (FX update %.1f ms median, heap %.0f MiB, %d points drawn)",
                                updates.median(),
                                heapMib,
                                drawn),
                "≤ 33 ms at 1M");
    }
}
