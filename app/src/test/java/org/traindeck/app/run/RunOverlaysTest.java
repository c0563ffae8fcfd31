package org.traindeck.app.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/** Runs compared across tasks: each run's own task metric is overlaid, named by what it is. */
@ExtendWith(ApplicationExtension.class)
class RunOverlaysTest {

    private Dashboard dashboard;

    @Start
    void start(Stage stage) {
        dashboard = new Dashboard();
    }

    private static List<EngineEvent> history(String... metrics) {
        List<EngineEvent> out = new ArrayList<>();
        for (long step = 10; step <= 30; step += 10) {
            out.add(new MetricEvent("r", "main", 0, 0, step, 0, step, MetricNames.VAL_LOSS, 1.0 / step, null));
            for (String m : metrics) {
                out.add(new MetricEvent("r", "main", 0, 0, step, 0, step, m, 0.5 + step / 100.0, null));
            }
        }
        return out;
    }

    @Test
    void eachRunShowsItsTasksOwnMetric(FxRobot robot) {
        robot.interact(() -> {
            dashboard
                    .overlays()
                    .show("unet", history(MetricNames.VAL_PIXEL_ACCURACY, MetricNames.VAL_MEAN_IOU), Color.RED);
            dashboard.overlays().show("digits", history(MetricNames.VAL_ACCURACY), Color.BLUE);
            dashboard.overlays().show("autoencoder", history(MetricNames.VAL_PSNR), Color.GREEN);
            dashboard.overlays().show("gpt", history(MetricNames.VAL_PERPLEXITY), Color.ORANGE);
            dashboard.refreshCharts();
        });
        assertThat(dashboard.validationChart().seriesKeys())
                .containsExactlyInAnyOrder(
                        "overlay:unet:" + MetricNames.VAL_MEAN_IOU,
                        "overlay:digits:" + MetricNames.VAL_ACCURACY,
                        "overlay:autoencoder:" + MetricNames.VAL_PSNR,
                        "overlay:gpt:" + MetricNames.VAL_PERPLEXITY);
        assertThat(dashboard
                        .validationChart()
                        .data("overlay:unet:" + MetricNames.VAL_MEAN_IOU)
                        .size())
                .isEqualTo(3);

        robot.interact(() -> dashboard.overlays().clear());
        assertThat(dashboard.validationChart().seriesKeys()).isEmpty();
    }
}
