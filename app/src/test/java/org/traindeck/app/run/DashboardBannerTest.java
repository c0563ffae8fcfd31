package org.traindeck.app.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.engine.events.LifecycleEvent;

/** What the run's banner shows: a file the run can no longer write is said at once, as an error. */
@ExtendWith(ApplicationExtension.class)
class DashboardBannerTest {

    private final AtomicReference<Dashboard> dashboard = new AtomicReference<>();

    @Start
    void start(Stage stage) {
        dashboard.set(new Dashboard());
    }

    private static LifecycleEvent event(LifecycleEvent.Kind kind, String message) {
        return new LifecycleEvent("r", "main", 0, 0, 12, 0, 1, kind, message);
    }

    @Test
    void aFileThatCannotBeWrittenShowsTheErrorBannerAndAnOrdinaryWarningDoesNot(FxRobot robot) {
        boolean[] visible = new boolean[2];
        String[] text = new String[1];
        robot.interact(() -> {
            Dashboard d = dashboard.get();
            d.offer(event(LifecycleEvent.Kind.WARNING, "float16 on the CPU backend is emulated"));
            d.drain(100);
            visible[0] = d.banner().isVisible();
            d.offer(event(
                    LifecycleEvent.Kind.FILE_WRITE_FAILED, "metrics.jsonl could not be written (the disk is full)"));
            d.drain(100);
            visible[1] = d.banner().isVisible();
            text[0] = d.banner().getText() + " " + d.banner().getStyleClass();
        });
        assertThat(visible[0]).isFalse();
        assertThat(visible[1]).isTrue();
        assertThat(text[0])
                .contains("metrics.jsonl could not be written (the disk is full)")
                .contains("banner-error");
    }
}
