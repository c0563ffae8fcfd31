package org.traindeck.app.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.concurrent.atomic.AtomicReference;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/** The status bar's progress, fed the events of a run in the order the engine sends them. */
@ExtendWith(ApplicationExtension.class)
class StatusBarTest {

    private final AtomicReference<StatusViewModel> bar = new AtomicReference<>();

    @Start
    void start(Stage stage) {
        bar.set(new StatusViewModel());
    }

    private static MetricEvent metric(int epoch, long step, String name, double value) {
        return new MetricEvent("r", "main", 0, epoch, step, 0, step / 10.0, name, value, null);
    }

    @Test
    void theEpochMetricsPublishedAfterAnEpochEndDoNotSendProgressBackToTheEpochStart(FxRobot robot) {
        double[] progress = new double[3];
        robot.interact(() -> {
            StatusViewModel b = bar.get();
            b.plan(new int[] {4});
            b.stepsPerEpoch(10);
            b.metric(metric(0, 0, MetricNames.STEPS_PER_EPOCH, 10));
            b.metric(metric(0, 5, MetricNames.TRAIN_LOSS, 1));
            progress[0] = b.progressValue();
            b.lifecycle(
                    new LifecycleEvent("r", "main", 0, 0, 10, 0, 1, LifecycleEvent.Kind.EPOCH_FINISHED, "epoch 1/4"));
            // the finished epoch's own metrics come after its end, still labelled epoch 0
            b.metric(metric(0, 10, MetricNames.TRAIN_EPOCH_LOSS, 1));
            progress[1] = b.progressValue();
            b.metric(metric(1, 12, MetricNames.TRAIN_LOSS, 1));
            progress[2] = b.progressValue();
        });
        assertThat(progress[0]).isCloseTo(0.5 / 4, within(1e-9));
        assertThat(progress[1]).isCloseTo(1.0 / 4, within(1e-9));
        assertThat(progress[2]).isCloseTo(1.2 / 4, within(1e-9));
    }

    @Test
    void theBarShowsWhatItsModelSays(FxRobot robot) {
        StatusViewModel model = new StatusViewModel();
        AtomicReference<StatusBar> shown = new AtomicReference<>();
        robot.interact(() -> {
            shown.set(new StatusBar(model));
            model.run("digits");
            model.plan(new int[] {2});
            model.stepsPerEpoch(10);
            model.metric(metric(1, 10, MetricNames.STEPS_PER_EPOCH, 10));
            model.metric(metric(1, 15, MetricNames.TRAIN_LOSS, 1));
        });
        assertThat(((Label) shown.get().lookup("#status-run")).getText()).isEqualTo("run digits");
        assertThat(((Label) shown.get().lookup("#status-epoch")).getText()).isEqualTo("epoch 2/2");
        assertThat(((Label) shown.get().lookup("#status-step")).getText()).isEqualTo("step 15");
        assertThat(((ProgressBar) shown.get().lookup("#status-progress")).getProgress())
                .isCloseTo(0.75, within(1e-9));
        robot.interact(model::reset);
        assertThat(((Label) shown.get().lookup("#status-stage")).getText()).isEqualTo("no run");
    }
}
