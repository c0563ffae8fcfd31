package org.traindeck.app.charts;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.Color;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A million points per series on four series: the chart library is only ever handed the per-pixel reduction, the
 * full data stays in the primitive arrays, and the FX thread keeps serving other work between redraws. (How long a
 * redraw takes is measured by the benchmark, not asserted here.)
 */
@ExtendWith(ApplicationExtension.class)
class MillionPointsChartTest {

    private LiveChart chart;

    @Start
    void start(Stage stage) {
        chart = new LiveChart("Stress", "value", false);
        stage.setScene(new Scene(new StackPane(chart), 1000, 600));
        stage.show();
    }

    @Test
    void aMillionPointsPerSeriesAreDrawnAsAReduction(FxRobot robot, @TempDir Path dir) throws Exception {
        int perSeries = 1_000_000;
        robot.interact(() -> {
            for (int s = 0; s < 4; s++) {
                SeriesBuffer data = chart.series("s" + s, "series " + s, new Color(40 * s, 80, 160), false);
                for (int i = 0; i < perSeries; i++) {
                    data.add(i, i / 1000.0, Math.sin(i / 20000.0 + s) + (i == 654_321 ? 9 : 0));
                }
            }
        });
        robot.interact(() -> assertThat(chart.refresh()).isTrue());
        // the one-point spike in each series survives the reduction to about two points per pixel column
        for (int s = 0; s < 4; s++) {
            double spike = Math.sin(654_321 / 20000.0 + s) + 9;
            assertThat(chart.drawnMax("s" + s)).as("series %d's spike", s).isEqualTo(spike);
        }

        assertThat(chart.totalPoints()).isEqualTo(4L * perSeries);
        // raw and smoothed line per series, each at most two points per pixel column
        double columns = chart.getWidth();
        assertThat(chart.drawnPoints()).isPositive().isLessThanOrEqualTo((long)
                (4 * 2 * (2 * Math.max(columns, 100) + 2)));
        robot.interact(() ->
                assertThat(chart.refresh()).as("nothing changed: no redraw").isFalse());

        // the FX thread answers between redraws while points keep arriving
        for (int round = 0; round < 5; round++) {
            robot.interact(() -> {
                for (int s = 0; s < 4; s++) {
                    SeriesBuffer data = chart.data("s" + s);
                    for (int i = 0; i < 1000; i++) {
                        data.add(data.size(), data.size() / 1000.0, 0.5);
                    }
                }
                chart.refresh();
            });
            CompletableFuture<Boolean> ping = new CompletableFuture<>();
            Platform.runLater(() -> ping.complete(true));
            assertThat(ping.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(chart.totalPoints()).isEqualTo(4L * (perSeries + 5000));

        // log scale, time axis and no smoothing redraw from the same arrays
        robot.interact(() -> {
            chart.smoothingSlider().setValue(0);
            chart.logScaleBox().setSelected(true);
            chart.xAxisChoice().setValue("time");
            assertThat(chart.refresh()).isTrue();
        });
        assertThat(chart.drawnPoints()).isLessThanOrEqualTo((long) (4 * (2 * Math.max(chart.getWidth(), 100) + 2)));

        Path csv = dir.resolve("stress.csv");
        Path png = dir.resolve("stress.png");
        // snapshots on the FX thread, the writing on this one (as the window's task executor does)
        CompletableFuture<ChartFile> csvFile = new CompletableFuture<>();
        CompletableFuture<ChartFile> pngFile = new CompletableFuture<>();
        robot.interact(() -> {
            csvFile.complete(chart.csvFile());
            pngFile.complete(chart.pngFile(800, 500));
        });
        csvFile.get(5, TimeUnit.SECONDS).writeTo(csv);
        pngFile.get(5, TimeUnit.SECONDS).writeTo(png);
        try (var lines = Files.lines(csv)) {
            assertThat(lines.count()).isEqualTo(1 + 4L * (perSeries + 5000));
        }
        assertThat(Files.size(png)).isGreaterThan(1000);
        WaitForAsyncUtils.waitForFxEvents();
    }
}
