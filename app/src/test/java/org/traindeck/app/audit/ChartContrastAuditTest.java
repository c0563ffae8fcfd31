package org.traindeck.app.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;

import java.awt.Color;
import javafx.scene.Scene;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.app.charts.SeriesBuffer;

/** The audit's contrast check looks at what a chart draws besides its series: each stage boundary's line and name. */
@ExtendWith(ApplicationExtension.class)
class ChartContrastAuditTest {

    private LiveChart chart;

    @Start
    void start(Stage stage) {
        chart = new LiveChart("Loss", "loss", false);
        stage.setScene(new Scene(new StackPane(chart), 700, 450));
        stage.show();
    }

    @Test
    void theAuditChecksEachSeriesAndEachStageTagOnTheDarkTheme(FxRobot robot) {
        robot.interact(() -> {
            chart.setDark(true);
            SeriesBuffer total = chart.series("total", "total", new Color(0x333333), false);
            SeriesBuffer train = chart.series("train", "train", new Color(0x1f77b4), false);
            for (int i = 0; i <= 20; i++) {
                total.add(i, i, 1.0 / (1 + i));
                train.add(i, i, 2.0 / (1 + i));
            }
            chart.addMarker(10, 10, "finetune");
            chart.refresh();
        });
        WaitForAsyncUtils.waitForFxEvents();
        AuditReport report = new AuditReport();
        onFx(() -> {
            TextAudit.checkSeries(chart, "Loss chart", report);
            return null;
        });
        assertThat(report.checkedCount(AuditReport.Kind.CONTRAST))
                .as("two series, the boundary's line and its name")
                .isEqualTo(4);
        assertThat(report.defects(AuditReport.Kind.CONTRAST)).isEmpty();
    }
}
