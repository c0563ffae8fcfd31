package org.traindeck.app.charts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.waitUntil;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javafx.geometry.Bounds;
import javafx.geometry.Point2D;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.MenuButton;
import javafx.scene.input.MouseButton;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.axis.ValueTick;
import org.jfree.chart.ui.RectangleEdge;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.tasks.CurrentThreadTaskExecutor;

/**
 * One chart in a real scene, driven with the mouse: hover read-out, zoom and reset, smoothing value, empty hint,
 * export.
 */
@ExtendWith(ApplicationExtension.class)
class LiveChartTest {

    private LiveChart chart;
    private Stage stage;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        chart = new LiveChart("Loss", "loss", false);
        chart.setEmptyHint("Press Start to train");
        stage.setScene(new Scene(new StackPane(chart), 800, 500));
        stage.show();
    }

    private void fill(FxRobot robot) {
        robot.interact(() -> {
            SeriesBuffer train = chart.series("train", "train", new Color(0x1f77b4), false);
            SeriesBuffer val = chart.series("val", "val", new Color(0xff7f0e), true);
            for (int i = 0; i <= 1000; i++) {
                train.add(i, i / 10.0, 2.0 / (1 + i / 100.0));
                if (i % 100 == 0) {
                    val.add(i, i / 10.0, 2.2 / (1 + i / 100.0));
                }
            }
            chart.refresh();
        });
        WaitForAsyncUtils.waitForFxEvents();
    }

    private Point2D plotPoint(FxRobot robot, double fx, double fy) {
        Bounds b = robot.lookup("#loss-crosshair")
                .query()
                .getParent()
                .localToScreen(
                        robot.lookup("#loss-crosshair").query().getParent().getLayoutBounds());
        return new Point2D(b.getMinX() + fx * b.getWidth(), b.getMinY() + fy * b.getHeight());
    }

    /**
     * On the dark theme a grey series and a stage boundary's line and name stand out from the background by 3:1 at
     * least (the boundary's name was JFreeChart's default black on near-black), and so on the light theme.
     */
    @Test
    void greySeriesAndStageTagsKeepTheirContrastInBothThemes(FxRobot robot) {
        for (boolean dark : new boolean[] {true, false}) {
            robot.interact(() -> {
                chart.setDark(dark);
                SeriesBuffer total = chart.series("total", "total", new Color(0x444444), false);
                total.add(0, 0, 1.0);
                total.add(10, 1, 0.5);
                chart.addMarker(5, 0.5, "finetune");
                chart.refresh();
            });
            WaitForAsyncUtils.waitForFxEvents();
            Color background = ChartPalette.background(dark);
            List<Paint> drawn = new ArrayList<>(onFx(() -> chart.markerPaints().values()));
            assertThat(drawn).as("the boundary's line and name").hasSize(2);
            drawn.add(onFx(() -> chart.drawnPaint("total")));
            for (Paint p : drawn) {
                assertThat(ChartPalette.contrast((Color) p, background))
                        .as("%s on the %s theme", p, dark ? "dark" : "light")
                        .isGreaterThanOrEqualTo(ChartPalette.MIN_CONTRAST);
            }
            robot.interact(() -> chart.clearAll());
        }
    }

    /** The first validation point: an x axis that reads "29 30 31", not "3E1 3E1 3E1", and the point drawn. */
    @Test
    void aSinglePointHasReadableStepsAndIsDrawn(FxRobot robot) {
        robot.interact(() -> {
            chart.series("val", "val", new Color(0xff7f0e), false).add(30, 3.0, 0.9);
            chart.refresh();
        });
        WaitForAsyncUtils.waitForFxEvents();
        List<String> ticks = onFx(() -> {
            BufferedImage image = new BufferedImage(600, 300, BufferedImage.TYPE_INT_RGB);
            Graphics2D g = image.createGraphics();
            try {
                ValueAxis x = chart.domainAxisForTest();
                List<String> labels = new ArrayList<>();
                for (Object t : x.refreshTicks(
                        g, new AxisState(), new Rectangle2D.Double(40, 10, 540, 250), RectangleEdge.BOTTOM)) {
                    String text = ((ValueTick) t).getText();
                    // minor ticks have no label
                    if (text != null && !text.isEmpty()) {
                        labels.add(text);
                    }
                }
                return labels;
            } finally {
                g.dispose();
            }
        });
        assertThat(ticks).contains("30").doesNotHaveDuplicates().noneMatch(t -> t.contains("E"));
        assertThat(onFx(() -> chart.drawsDots("val"))).isTrue();

        robot.interact(() -> {
            chart.data("val").add(60, 6.0, 0.8);
            chart.refresh();
        });
        assertThat(onFx(() -> chart.drawsDots("val")))
                .as("two points make a line")
                .isFalse();
    }

    @Test
    void theEmptyHintShowsUntilPointsArriveAndAfterAClear(FxRobot robot) {
        assertThat(robot.lookup("#loss-empty").queryAs(Label.class).isVisible()).isTrue();
        assertThat(chart.shownEmptyHint()).isEqualTo("Press Start to train");
        fill(robot);
        assertThat(chart.shownEmptyHint()).isNull();
        robot.interact(() -> {
            chart.clearAll();
            chart.refresh();
        });
        assertThat(chart.shownEmptyHint()).isEqualTo("Press Start to train");
    }

    @Test
    void hoveringShowsEverySeriesAtThatStepAndLeavingHidesIt(FxRobot robot) {
        fill(robot);
        robot.moveTo(plotPoint(robot, 0.5, 0.5));
        waitUntil("the read-out", () -> chart.shownReadout() != null);
        String readout = onFx(chart::shownReadout);
        assertThat(readout.lines().toList()).hasSize(3).satisfies(rows -> {
            assertThat(rows.get(0)).startsWith("step ");
            assertThat(rows.get(1)).startsWith("train  ");
            assertThat(rows.get(2)).startsWith("val  ");
        });
        assertThat(robot.lookup("#loss-crosshair").query().isVisible()).isTrue();

        robot.moveTo(new Point2D(stage.getX() + stage.getWidth() + 50, stage.getY() + 20));
        waitUntil("the read-out to go", () -> chart.shownReadout() == null);
        assertThat(robot.lookup("#loss-crosshair").query().isVisible()).isFalse();
    }

    @Test
    void theReadoutIsTheNearestPointOfEachSeries() {
        SeriesBuffer train = chart.series("train", "train", Color.BLUE, false);
        SeriesBuffer val = chart.series("val", "val", Color.RED, true);
        train.add(10, 1, 0.5);
        train.add(20, 2, 0.25);
        val.add(10, 1, 0.75);
        assertThat(chart.readoutAt(18)).containsExactly("step 20", "train  0.2500", "val  0.7500");
    }

    @Test
    void draggingZoomsInAndResetShowsEverything(FxRobot robot) {
        fill(robot);
        assertThat(chart.zoomedProperty().get()).isFalse();
        assertThat(robot.lookup("#loss-reset-zoom").queryAs(Button.class).isVisible())
                .isFalse();

        robot.drag(plotPoint(robot, 0.3, 0.2), MouseButton.PRIMARY).dropTo(plotPoint(robot, 0.6, 0.8));
        waitUntil("the zoom", () -> chart.zoomedProperty().get());
        assertThat(robot.lookup("#loss-reset-zoom").queryAs(Button.class).isVisible())
                .isTrue();
        robot.interact(chart::refresh);
        // the reduction now covers the visible steps only
        assertThat(chart.drawnPoints()).isLessThan(1000);

        robot.clickOn("#loss-reset-zoom");
        waitUntil("the reset", () -> !chart.zoomedProperty().get());
        assertThat(robot.lookup("#loss-reset-zoom").queryAs(Button.class).isVisible())
                .isFalse();
    }

    @Test
    void theSmoothingWeightIsShownAndFollowsTheSlider(FxRobot robot) {
        assertThat(robot.lookup("#loss-smoothing-value").queryAs(Label.class).getText())
                .isEqualTo("0.60");
        robot.interact(() -> chart.smoothingSlider().setValue(0.9));
        assertThat(robot.lookup("#loss-smoothing-value").queryAs(Label.class).getText())
                .isEqualTo("0.90");
    }

    /** Five to eight validations smoothed at 0.6 read far below their last value: a short series is drawn as it is. */
    @Test
    void aShortSeriesIsNotSmoothedUntilTheUserSetsTheSmoothing(FxRobot robot) {
        SeriesBuffer val = chart.series("val", "val", Color.RED, true);
        double[] values = {0.2, 0.45, 0.6, 0.7, 0.76, 0.79, 0.82};
        for (int i = 0; i < values.length; i++) {
            val.add(100 * (i + 1), i + 1, values[i]);
        }
        SeriesBuffer train = chart.series("train", "train", Color.BLUE, false);
        for (int i = 0; i < 200; i++) {
            train.add(i, i, i % 2 == 0 ? 1 : 0);
        }
        robot.interact(chart::refresh);
        assertThat(chart.drawnLast("val")).isEqualTo(0.82);
        assertThat(chart.drawnLast("train")).as("a long series is smoothed").isStrictlyBetween(0.2, 0.8);

        robot.interact(() -> chart.smoothingSlider().setValue(0.5));
        robot.interact(chart::refresh);
        assertThat(chart.drawnLast("val"))
                .as("the user's smoothing applies to all")
                .isLessThan(0.8);
    }

    @Test
    void logScaleUsesReadableTicks(FxRobot robot) {
        fill(robot);
        robot.clickOn("#loss-log");
        robot.interact(chart::refresh);
        assertThat(chart.rangeAxisForTest()).isInstanceOf(DecadeLogAxis.class);
    }

    @Test
    void atANarrowWidthTheControlsStayWhole(FxRobot robot) {
        robot.interact(() -> {
            stage.setWidth(380);
            stage.getScene().getRoot().requestLayout();
        });
        WaitForAsyncUtils.waitForFxEvents();
        MenuButton export = robot.lookup("#loss-export").queryAs(MenuButton.class);
        Label value = robot.lookup("#loss-smoothing-value").queryAs(Label.class);
        assertThat(export.getWidth()).isGreaterThanOrEqualTo(export.prefWidth(-1) - 0.5);
        assertThat(value.getWidth()).isGreaterThanOrEqualTo(value.prefWidth(-1) - 0.5);
    }

    @Test
    void theExportMenuWritesEveryPointToTheChosenFileAndSaysWhenItCannot(FxRobot robot, @TempDir Path dir)
            throws IOException {
        fill(robot);
        List<String> failures = new ArrayList<>();
        Path[] chosen = {dir.resolve("chosen.csv")};
        robot.interact(() -> chart.setExportTarget(name -> chosen[0], new CurrentThreadTaskExecutor(), failures::add));
        MenuButton export = robot.lookup("#loss-export").queryAs(MenuButton.class);
        robot.interact(() -> export.getItems().get(1).fire());

        List<String> rows = Files.readAllLines(chosen[0]);
        assertThat(rows.get(0)).isEqualTo("series,step,time,value");
        // every point, not the reduction: 1,001 training points and 11 validations
        assertThat(rows).hasSize(1 + 1001 + 11);
        assertThat(rows.get(1)).startsWith("\"train\",0.0,");
        assertThat(failures).isEmpty();

        chosen[0] = dir.resolve("no-such-folder").resolve("loss.png");
        robot.interact(() -> export.getItems().get(0).fire());
        assertThat(failures).singleElement().asString().startsWith("Could not export Loss to " + chosen[0]);
    }
}
