package org.traindeck.app.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.TelemetryEvent;

/** The dashboard fed a run's events in the order the engine sends them. */
@ExtendWith(ApplicationExtension.class)
class DashboardEventsTest {

    private final AtomicReference<Dashboard> dashboard = new AtomicReference<>();

    @Start
    void start(Stage stage) {
        dashboard.set(new Dashboard());
    }

    private static LifecycleEvent lifecycle(LifecycleEvent.Kind kind, int stage, long step, long wall, double elapsed) {
        return new LifecycleEvent("r", "s" + stage, stage, 0, step, wall, elapsed, kind, kind.name());
    }

    private static TelemetryEvent telemetry(String name, long wall, double value) {
        return TelemetryEvent.figure(wall, name, "cpu", value);
    }

    private void feed(FxRobot robot, List<EngineEvent> events) {
        robot.interact(() -> {
            events.forEach(dashboard.get()::offer);
            dashboard.get().drain(1000);
            dashboard.get().refreshCharts();
        });
    }

    @Test
    void aResumedStageKeepsOneBoundary(FxRobot robot) {
        long now = System.currentTimeMillis();
        feed(
                robot,
                List.of(
                        lifecycle(LifecycleEvent.Kind.STAGE_STARTED, 0, 0, now, 0),
                        lifecycle(LifecycleEvent.Kind.STAGE_STARTED, 1, 40, now, 4),
                        // a resume in stage 2 announces it again
                        lifecycle(LifecycleEvent.Kind.RUN_RESUMED, 1, 55, now, 6),
                        lifecycle(LifecycleEvent.Kind.STAGE_STARTED, 1, 55, now, 6)));

        assertThat(dashboard.get().lossChart().markerCount()).isEqualTo(2);
        assertThat(dashboard.get().lrChart().markerCount()).isEqualTo(2);
    }

    @Test
    void validationAccuracyIsPlottedAndLogged(FxRobot robot) {
        feed(
                robot,
                List.of(new MetricEvent(
                        "r", "main", 0, 2, 30, System.currentTimeMillis(), 3, MetricNames.VAL_ACCURACY, 0.9734, null)));

        var accuracy = dashboard.get().validationChart().data("accuracy/0");
        assertThat(accuracy.size()).isEqualTo(1);
        assertThat(accuracy.step(0)).isEqualTo(30);
        assertThat(accuracy.value(0)).isEqualTo(0.9734);

        assertThat(List.copyOf(dashboard.get().log().getItems()))
                .anySatisfy(l -> assertThat(l).contains("validation accuracy 97.34 % after epoch 3 of \"main\""));
    }

    private static MetricEvent validation(String name, long step, double value) {
        return new MetricEvent("r", "main", 0, 0, step, System.currentTimeMillis(), step / 10.0, name, value, null);
    }

    @Test
    void segmentationShowsPixelAccuracyAndMeanIou(FxRobot robot) {
        feed(
                robot,
                List.of(
                        validation(MetricNames.VAL_LOSS, 30, 0.4),
                        validation(MetricNames.VAL_PIXEL_ACCURACY, 30, 0.91),
                        validation(MetricNames.VAL_MEAN_IOU, 30, 0.72)));

        assertThat(dashboard.get().validationChart().data("pixel_accuracy/0").value(0))
                .isEqualTo(0.91);
        assertThat(dashboard.get().validationChart().data("mean_iou/0").value(0))
                .isEqualTo(0.72);
        assertThat(dashboard.get().validationChart().yLabel()).isEqualTo("fraction");
    }

    @Test
    void reconstructionShowsPsnrInDecibelsRatherThanTheErrorTheLossChartAlreadyShows(FxRobot robot) {
        // the engine publishes val/mse before val/psnr for an autoencoder
        feed(
                robot,
                List.of(
                        validation(MetricNames.VAL_MSE, 30, 0.008),
                        validation(MetricNames.VAL_PSNR, 30, 20.3),
                        validation(MetricNames.VAL_MSE, 60, 0.004),
                        validation(MetricNames.VAL_PSNR, 60, 23.4)));

        assertThat(dashboard.get().validationChart().hasSeries("mse/0")).isFalse();
        assertThat(dashboard.get().validationChart().data("psnr/0").size()).isEqualTo(2);
        assertThat(dashboard.get().validationChart().yLabel()).isEqualTo("dB");
    }

    @Test
    void sequenceShowsPerplexity(FxRobot robot) {
        feed(
                robot,
                List.of(validation(MetricNames.VAL_LOSS, 30, 2.35), validation(MetricNames.VAL_PERPLEXITY, 30, 10.5)));

        assertThat(dashboard.get().validationChart().data("perplexity/0").value(0))
                .isEqualTo(10.5);
        assertThat(dashboard.get().validationChart().yLabel()).isEqualTo("perplexity");
    }

    @Test
    void regressionStillShowsMseAndMae(FxRobot robot) {
        feed(robot, List.of(validation(MetricNames.VAL_MSE, 30, 0.5), validation(MetricNames.VAL_MAE, 30, 0.6)));

        assertThat(dashboard.get().validationChart().data("mse/0").value(0)).isEqualTo(0.5);
        assertThat(dashboard.get().validationChart().data("mae/0").value(0)).isEqualTo(0.6);
        assertThat(dashboard.get().validationChart().yLabel()).isEqualTo("error");
    }

    @Test
    void theMemoryChartCountsFromTheRunsStartNotTheWindowsLaunch(FxRobot robot) {
        long now = System.currentTimeMillis();
        // the window has been open for an hour when the run starts
        feed(
                robot,
                List.of(
                        telemetry("cpu/heap_used_mib", now - 30_000, 100),
                        lifecycle(LifecycleEvent.Kind.RUN_STARTED, 0, 0, now - 10_000, 0),
                        telemetry("cpu/heap_used_mib", now - 5_000, 120),
                        telemetry("cpu/heap_used_mib", now, 130)));

        var heap = dashboard.get().memoryChart().data("heap");
        assertThat(heap.size()).as("points before the run are dropped").isEqualTo(2);
        assertThat(heap.time(0)).isBetween(4.9, 5.1);
        assertThat(heap.time(1)).isBetween(9.9, 10.1);
    }
}
