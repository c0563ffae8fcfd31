package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TabPane;
import javafx.scene.layout.Pane;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.audit.LayoutAudit;
import org.traindeck.app.audit.LayoutAuditInWindow;

/**
 * The audit finds a planted clipping, and the real-window audit ({@code --layout-audit}, run by
 * {@code .ci/check-window.sh}) reports it from every tab and fails.
 */
class LayoutAuditTest extends WindowTest {

    @Test
    void aControlWiderThanItsPaneIsReportedAndScrollingContentIsNot(FxRobot robot) {
        Stage[] stage = new Stage[1];
        robot.interact(() -> {
            Pane narrow = new Pane(new Button("far too wide"));
            narrow.setMaxWidth(100);
            ((Button) narrow.getChildren().get(0)).setMinWidth(300);
            Button wideButScrolled = new Button("scrolled");
            wideButScrolled.setMinWidth(1000);
            stage[0] = new Stage();
            stage[0].setScene(new Scene(new VBox(narrow, new ScrollPane(wideButScrolled)), 400, 200));
            stage[0].show();
        });
        WaitForAsyncUtils.waitForFxEvents();
        try {
            List<String> clipped =
                    onFx(() -> LayoutAudit.clippedControls(stage[0].getScene().getRoot(), "planted"));
            assertThat(clipped)
                    .singleElement()
                    .asString()
                    .startsWith("[planted] Button 'far too wide' leaves its parent [planted] Pane: (0,0)-(300,");
        } finally {
            robot.interact(stage[0]::close);
        }
    }

    @Test
    void theRealWindowAuditFailsOnAWindowTooNarrowForItsPanes(FxRobot robot) {
        // the two sides' minimum widths add up to more than 800: the run side's controls leave the window
        robot.interact(() -> {
            Stage stage = (Stage) window.scene().getWindow();
            stage.setWidth(800);
            stage.setHeight(600);
        });
        List<String> report = new CopyOnWriteArrayList<>();
        robot.interact(() -> new LayoutAuditInWindow(
                        window.scene(),
                        LayoutAuditInWindow.Size.parse("800x600"),
                        () -> window.document().validationProperty().get() != null,
                        report::add)
                .start());
        waitUntil("the audit's verdict", () -> report.stream().anyMatch(l -> l.startsWith("layout-audit ")));
        assertThat(report.get(report.size() - 1))
                .matches("layout-audit 800x600: FAILED, \\d+ defects on \\d+ tab pairs and 0 dialogs: \\d+ checked for"
                        + " clipped \\(\\d+ found\\), .*");
        assertThat(report.subList(0, report.size() - 1))
                .isNotEmpty()
                .allMatch(l -> l.matches("(clipped|ellipsized|overlapping|contrast): \\[.*"))
                .anyMatch(l -> l.startsWith("clipped: [Config + Charts]"))
                .anyMatch(l -> l.startsWith("clipped: [Sweeps + Predictions]"));
        // the tabs the user had are selected again
        assertThat(onFx(() -> robot.lookup("#config-tabs")
                        .queryAs(TabPane.class)
                        .getSelectionModel()
                        .getSelectedIndex()))
                .isZero();
    }
}
