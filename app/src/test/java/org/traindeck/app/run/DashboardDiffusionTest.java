package org.traindeck.app.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/**
 * A diffusion cascade's validation as the engine publishes it (the denoising loss and its errors every epoch, the
 * sampled PSNR and projection error every other epoch and at each stage's end): PSNR drawn per stage on the validation
 * chart in place of the errors, the projection error per stage beside the losses, and both in the end-of-run summary.
 */
@ExtendWith(ApplicationExtension.class)
class DashboardDiffusionTest {

    private final AtomicReference<Dashboard> dashboard = new AtomicReference<>();

    @Start
    void start(Stage stage) {
        dashboard.set(new Dashboard());
    }

    private static MetricEvent metric(int stage, long step, String name, double value) {
        return new MetricEvent(
                "cascade",
                "stage" + (stage + 1),
                stage,
                0,
                step,
                System.currentTimeMillis(),
                step / 10.0,
                name,
                value,
                null);
    }

    /** Two stages of four epochs of 10 steps; sampling after epochs 2 and 4 of each. */
    private static List<EngineEvent> cascade() {
        List<EngineEvent> events = new ArrayList<>();
        for (int stage = 0; stage < 2; stage++) {
            for (int epoch = 1; epoch <= 4; epoch++) {
                long step = stage * 40L + epoch * 10L;
                events.add(metric(stage, step, MetricNames.TRAIN_LOSS, 0.5 / epoch));
                events.add(metric(stage, step, MetricNames.VAL_LOSS, 0.6 / epoch));
                events.add(metric(stage, step, MetricNames.VAL_MSE, 0.6 / epoch));
                events.add(metric(stage, step, MetricNames.VAL_MAE, 0.4 / epoch));
                if (epoch % 2 == 0) {
                    events.add(metric(stage, step, MetricNames.VAL_PSNR, 10 + 2 * epoch + 5 * stage));
                    events.add(metric(stage, step, MetricNames.VAL_PROJECTION_ERROR, 0.2 / epoch));
                }
            }
        }
        return events;
    }

    @Test
    void psnrIsChartedPerStageAndTheProjectionErrorBesideTheLosses(FxRobot robot) {
        robot.interact(() -> {
            cascade().forEach(dashboard.get()::offer);
            dashboard.get().drain(1000);
            dashboard.get().refreshCharts();
        });

        LiveChart validation = dashboard.get().validationChart();
        assertThat(validation.hasSeries("mse/0")).as("errors give way to PSNR").isFalse();
        assertThat(validation.hasSeries("mae/1")).isFalse();
        assertThat(validation.data("psnr/0").size()).isEqualTo(2);
        assertThat(validation.data("psnr/0").value(1)).isEqualTo(18);
        assertThat(validation.data("psnr/1").value(0)).isEqualTo(19);
        LiveChart loss = dashboard.get().lossChart();
        assertThat(loss.data("val_projection/0").size()).isEqualTo(2);
        assertThat(loss.data("val_projection/1").value(1)).isEqualTo(0.05);
        assertThat(loss.data("val/1").size()).isEqualTo(4);
    }

    @Test
    void theSummaryGivesEachStagesPsnrAndProjectionError() {
        RunResult result =
                new RunResult(RunResult.Status.FINISHED, "", Path.of("/runs/cascade"), 80, 60, Map.of(), null);

        assertThat(EndOfRunSummary.of("cascade", result, cascade()).stages())
                .containsExactly(
                        "Stage \"stage1\": train loss 0.1250 · val loss best 0.1500, final 0.1500"
                                + " · val PSNR best 18.00 dB, final 18.00 dB"
                                + " · val projection error best 0.05000, final 0.05000",
                        "Stage \"stage2\": train loss 0.1250 · val loss best 0.1500, final 0.1500"
                                + " · val PSNR best 23.00 dB, final 23.00 dB"
                                + " · val projection error best 0.05000, final 0.05000");
    }
}
