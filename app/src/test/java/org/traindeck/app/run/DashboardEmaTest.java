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
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/** A stage's weight average: its validation curves (val_ema/...) beside the weights' on the same charts. */
@ExtendWith(ApplicationExtension.class)
class DashboardEmaTest {

    private final AtomicReference<Dashboard> dashboard = new AtomicReference<>();

    @Start
    void start(Stage stage) {
        dashboard.set(new Dashboard());
    }

    private void feed(FxRobot robot, List<EngineEvent> events) {
        robot.interact(() -> {
            events.forEach(dashboard.get()::offer);
            dashboard.get().drain(1000);
            dashboard.get().refreshCharts();
        });
    }

    private static MetricEvent validation(String name, long step, double value) {
        return new MetricEvent("r", "main", 0, 0, step, System.currentTimeMillis(), step / 10.0, name, value, null);
    }

    @Test
    void theAveragesLossAndAccuracyAreDrawnBesideTheWeights(FxRobot robot) {
        feed(
                robot,
                List.of(
                        validation(MetricNames.VAL_LOSS, 30, 0.40),
                        validation(MetricNames.VAL_ACCURACY, 30, 0.90),
                        validation(MetricNames.ofEma(MetricNames.VAL_LOSS), 30, 0.35),
                        validation(MetricNames.ofEma(MetricNames.VAL_ACCURACY), 30, 0.93)));

        assertThat(dashboard.get().lossChart().data("val/0").value(0)).isEqualTo(0.40);
        assertThat(dashboard.get().lossChart().data("val_ema/0").value(0)).isEqualTo(0.35);
        assertThat(dashboard.get().validationChart().data("accuracy/0").value(0))
                .isEqualTo(0.90);
        assertThat(dashboard.get().validationChart().data("ema_accuracy/0").value(0))
                .isEqualTo(0.93);
    }

    @Test
    void aMoreTellingUnitReplacesTheAveragesErrorCurvesToo(FxRobot robot) {
        feed(
                robot,
                List.of(
                        validation(MetricNames.VAL_MSE, 30, 0.2),
                        validation(MetricNames.ofEma(MetricNames.VAL_MSE), 30, 0.1),
                        validation(MetricNames.VAL_PSNR, 30, 21),
                        validation(MetricNames.ofEma(MetricNames.VAL_PSNR), 30, 22)));

        assertThat(dashboard.get().validationChart().hasSeries("mse/0")).isFalse();
        assertThat(dashboard.get().validationChart().hasSeries("ema_mse/0")).isFalse();
        assertThat(dashboard.get().validationChart().data("ema_psnr/0").value(0))
                .isEqualTo(22);
    }
}
