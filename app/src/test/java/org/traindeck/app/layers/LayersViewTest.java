package org.traindeck.app.layers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.waitUntil;

import atlantafx.base.theme.PrimerDark;
import atlantafx.base.theme.PrimerLight;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.application.Application;
import javafx.geometry.Point2D;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableRow;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import javafx.util.Duration;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.run.Dashboard;
import org.traindeck.engine.events.LayerMetrics.Figure;
import org.traindeck.engine.events.LifecycleEvent;

/**
 * The Layers tab of a real dashboard in a real scene, fed a 100-layer network's events from another thread as a run
 * publishes them and applied by a 10 Hz timer as the window does: rows, coloured cells, the histograms of the row
 * under the mouse or selected, the table's figures and a warning's mark. It also writes the README's screenshot.
 */
@ExtendWith(ApplicationExtension.class)
class LayersViewTest {

    private static final int LAYERS = 100;
    private static final long STEPS = 20_000;
    private static final long EVERY = 20;

    private final LayerEvents run = new LayerEvents(LAYERS, 11);
    private Dashboard dashboard;
    private Timeline timer;

    @Start
    void start(Stage stage) {
        Application.setUserAgentStylesheet(new PrimerLight().getUserAgentStylesheet());
        dashboard = new Dashboard();
        Scene scene = new Scene(dashboard, 1100, 800);
        scene.getStylesheets()
                .add(Dashboard.class
                        .getResource("/org/traindeck/app/assets/traindeck.css")
                        .toExternalForm());
        stage.setScene(scene);
        stage.show();
        dashboard.chartsOrLayers().getSelectionModel().select(1);
        timer = new Timeline(new KeyFrame(Duration.millis(100), e -> {
            dashboard.drain(50_000);
            dashboard.refreshCharts();
        }));
        timer.setCycleCount(Timeline.INDEFINITE);
        timer.play();
    }

    @AfterEach
    void stopTimer() {
        onFx(() -> {
            timer.stop();
            return null;
        });
    }

    /** A run's per-layer events, offered from this thread as the engine's listener thread would. */
    private void train() {
        for (long step = 0; step <= STEPS; step += EVERY) {
            run.figures(step, STEPS).forEach(dashboard::offer);
            if (step % 5000 == 0) {
                run.histograms(step).forEach(dashboard::offer);
            }
        }
        waitUntil(
                "every event applied",
                () -> model().rows().size() == LAYERS
                        && model().find(run.names().get(LAYERS - 1)).step() == STEPS
                        && model().find(run.names().get(0)).weights() != null
                        && model().find(run.names().get(0)).weights().step() == STEPS);
    }

    private LayersViewModel model() {
        return dashboard.layers().model();
    }

    private HeatMap heatMap(FxRobot robot) {
        return robot.lookup("#layers-heatmap").queryAs(HeatMap.class);
    }

    /** The screen point over row {@code row} of the heat map, {@code across} of the way along its steps. */
    private Point2D cell(FxRobot robot, int row, double across) {
        HeatMap map = heatMap(robot);
        return onFx(() -> {
            double rowHeight = map.plotHeight() / model().rows().size();
            return map.localToScreen(map.plotX() + across * map.plotWidth(), map.plotY() + (row + 0.5) * rowHeight);
        });
    }

    @Test
    void aHundredLayersShowAsRowsOfColouredCells(FxRobot robot) {
        assertThat(robot.lookup("#layers-empty").queryAs(Label.class).isVisible())
                .isTrue();
        train();
        waitUntil(
                "the table's rows",
                () -> dashboard.layers().lookup("#layers-table") != null
                        && robot.lookup("#layers-table")
                                        .queryTableView()
                                        .getItems()
                                        .size()
                                == LAYERS);
        assertThat(robot.lookup("#layers-empty").queryAs(Label.class).isVisible())
                .isFalse();

        HeatMap map = heatMap(robot);
        waitUntil("the cells drawn", () -> map.cells() != null && map.cells().getHeight() == LAYERS);
        int[] rows = {run.names().indexOf(run.tooFast()), run.names().indexOf(run.dead()), 0, LAYERS - 1};
        onFx(() -> {
            WritableImage cells = map.cells();
            assertThat(map.shownPixels())
                    .isLessThanOrEqualTo((int) map.plotWidth())
                    .isLessThanOrEqualTo(LayersViewModel.COLUMNS);
            PixelReader pixels = cells.getPixelReader();
            for (int r = 0; r < LAYERS; r++) {
                for (int x = 0; x < (int) cells.getWidth(); x++) {
                    assertThat(pixels.getArgb(x, r) >>> 24)
                            .as("cell %d of row %d", x, r)
                            .isEqualTo(0xff);
                }
            }
            return null;
        });
        // what reached the screen: the layer that learns too fast is red, the dead one blue, the healthy pale
        WritableImage shot = onFx(() -> map.snapshot(null, null));
        for (int r : rows) {
            Point2D p = onFx(() -> new Point2D(
                    map.plotX() + 0.5 * map.plotWidth(), map.plotY() + (r + 0.5) * map.plotHeight() / LAYERS));
            int argb = shot.getPixelReader().getArgb((int) p.getX(), (int) p.getY());
            int red = argb >> 16 & 0xff;
            int blue = argb & 0xff;
            if (r == rows[0]) {
                assertThat(red).as("the too-fast layer's red").isGreaterThan(0xa0);
                assertThat(blue).isLessThan(0x60);
            } else if (r == rows[1]) {
                assertThat(blue).as("the dead layer's blue").isGreaterThan(0x80);
                assertThat(red).isLessThan(0x60);
            } else {
                assertThat(argb).as("row %d is drawn in the scale's colours", r).isNotEqualTo(0xffffffff);
            }
        }
    }

    @Test
    void aShortRunsLoggedStepsHoldTheirColourUntilTheNextAndTheEmptyViewSaysHowToTakeThemMoreOften(FxRobot robot) {
        assertThat(robot.lookup("#layers-empty").queryAs(Label.class).getText())
                .contains("\"everySteps\"")
                .contains("end of each stage");
        for (long step = 50; step <= 200; step += 50) {
            run.figures(step, 200).forEach(dashboard::offer);
        }
        waitUntil(
                "the four logged steps applied",
                () -> model().rows().size() == LAYERS
                        && model().find(run.names().get(LAYERS - 1)).step() == 200);
        HeatMap map = heatMap(robot);
        waitUntil(
                "the cells drawn",
                () -> map.cells() != null && map.cells().getHeight() == LAYERS && map.shownPixels() > 4);
        onFx(() -> {
            // one grid column a step: 151 columns, 4 of them logged; the steps between show the last logged value
            PixelReader pixels = map.cells().getPixelReader();
            for (int r = 0; r < LAYERS; r++) {
                for (int x = 0; x < (int) map.cells().getWidth(); x++) {
                    assertThat(pixels.getArgb(x, r) >>> 24)
                            .as("cell %d of row %d", x, r)
                            .isEqualTo(0xff);
                }
            }
            return null;
        });
    }

    @Test
    void theRowUnderTheMouseOrSelectedShowsItsHistograms(FxRobot robot) {
        train();
        int hovered = 37;
        robot.moveTo(cell(robot, hovered, 0.5));
        String name = run.names().get(hovered);
        waitUntil(
                "the hovered layer's histograms",
                () -> robot.lookup("#layers-shown")
                        .queryAs(Label.class)
                        .getText()
                        .equals(name));
        HistogramChart weights = robot.lookup("#layers-weights").queryAs(HistogramChart.class);
        HistogramChart gradients = robot.lookup("#layers-gradients").queryAs(HistogramChart.class);
        assertThat(onFx(weights::shown)).isSameAs(onFx(() -> model().find(name).weights()));
        assertThat(onFx(gradients::shown))
                .isSameAs(onFx(() -> model().find(name).gradients()));
        assertThat(onFx(() -> weights.shown().step())).isEqualTo(STEPS);
        assertThat(robot.lookup("#layers-readout").queryAs(Label.class).getText())
                .startsWith(name + " · steps ")
                .contains("update ratio");

        int clicked = 5;
        robot.clickOn(cell(robot, clicked, 0.3));
        waitUntil(
                "the selection",
                () -> robot.lookup("#layers-table")
                                        .queryTableView()
                                        .getSelectionModel()
                                        .getSelectedItem()
                                instanceof LayerItem item
                        && item.row() == model().rows().get(clicked));
        // off the heat map, the histograms are the selected layer's
        robot.moveTo((Node) robot.lookup("#layers-table").query());
        waitUntil(
                "the selected layer's histograms",
                () -> robot.lookup("#layers-shown")
                        .queryAs(Label.class)
                        .getText()
                        .equals(run.names().get(clicked)));
        assertThat(onFx(weights::shown))
                .isSameAs(onFx(() -> model().rows().get(clicked).weights()));
    }

    @Test
    void theTableShowsEachLayersLatestFiguresAndMarksAWarnedLayer(FxRobot robot) {
        train();
        LayerRow first = onFx(() -> model().rows().get(0));
        waitUntil(
                "the first row's figures",
                () -> cellText(robot, first, "layers-col-update_ratio")
                        .equals(Optional.of(Figures.format(first.value(Figure.UPDATE_RATIO)))));
        for (Figure f : List.of(Figure.PARAM_NORM, Figure.GRAD_NORM, Figure.ACT_MEAN, Figure.ACT_STD)) {
            assertThat(onFx(() -> cellText(robot, first, "layers-col-" + f.suffix())))
                    .contains(Figures.format(first.value(f)));
        }
        assertThat(onFx(() -> cellText(robot, first, "layers-col-step"))).contains("20,000");
        assertThat(onFx(() -> cellText(robot, first, "layers-col-act_zero_fraction"))
                        .orElseThrow())
                .endsWith(" %");

        String message = "layer '" + run.tooFast() + "': the update ratio has stayed above 0.1 for 200 steps;"
                + " lower its learning rate";
        dashboard.offer(LayerEvents.lifecycle(LifecycleEvent.Kind.WARNING, STEPS, message));
        LayerRow warned = onFx(() -> model().find(run.tooFast()));
        robot.interact(() -> robot.lookup("#layers-table").queryTableView().scrollTo(warned.index()));
        waitUntil(
                "the warned row marked",
                () -> row(robot, warned)
                                .map(r -> r.getStyleClass().contains("layer-warned"))
                                .orElse(false)
                        && cellText(robot, warned, "layers-col-warning").equals(Optional.of(message)));
        assertThat(onFx(() -> dashboard.banner().isVisible())).isTrue();
        assertThat(onFx(() -> dashboard.banner().getText())).contains(message);
        assertThat(onFx(() ->
                        model().rows().stream().filter(r -> r.warning() != null).count()))
                .isEqualTo(1);
    }

    private static Optional<TableRow<?>> row(FxRobot robot, LayerRow item) {
        for (Node n : robot.lookup("#layers-table").queryTableView().lookupAll(".table-row-cell")) {
            if (n instanceof TableRow<?> r && r.getItem() instanceof LayerItem i && i.row() == item && r.isVisible()) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> cellText(FxRobot robot, LayerRow item, String columnId) {
        return row(robot, item)
                .flatMap(r -> r.lookupAll(".table-cell").stream()
                        .filter(c -> c instanceof TableCell<?, ?> cell
                                && columnId.equals(cell.getTableColumn().getId()))
                        .map(c -> ((TableCell<?, ?>) c).getText())
                        .findFirst());
    }

    /** The README's picture: a selected layer, its histograms, the warned layer marked. Kept in target/. */
    @Test
    void writesTheScreenshot(FxRobot robot) throws Exception {
        train();
        String message = "layer '" + run.tooFast() + "': the update ratio has stayed above 0.1 for 200 steps;"
                + " lower its learning rate";
        dashboard.offer(LayerEvents.lifecycle(LifecycleEvent.Kind.WARNING, STEPS, message));
        LayerRow shown = onFx(() -> model().find(run.names().get(12)));
        robot.interact(() -> {
            robot.lookup("#layers-table").queryTableView().getSelectionModel().select(shown.index());
            robot.lookup("#layers-table").queryTableView().scrollTo(Math.max(0, shown.index() - 3));
        });
        waitUntil(
                "the warning and the selection drawn",
                () -> dashboard.banner().isVisible()
                        && robot.lookup("#layers-shown")
                                .queryAs(Label.class)
                                .getText()
                                .equals(shown.node())
                        && cellText(robot, shown, "layers-col-update_ratio")
                                .map(t -> !t.isEmpty())
                                .orElse(false));
        Path light = snapshot("layers-view.png");
        assertThat(Files.size(light)).isGreaterThan(10_000);
        // the same in Primer Dark, to look at (the canvases draw their own colours for each theme)
        robot.interact(() -> {
            Application.setUserAgentStylesheet(new PrimerDark().getUserAgentStylesheet());
            dashboard.setDark(true);
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(Files.size(snapshot("layers-view-dark.png"))).isGreaterThan(10_000);
    }

    /** The scene as a PNG in target/. */
    private Path snapshot(String name) throws Exception {
        WritableImage image = onFx(() -> dashboard.getScene().snapshot(null));
        int w = (int) image.getWidth();
        int h = (int) image.getHeight();
        BufferedImage png = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        int[] argb = new int[w * h];
        image.getPixelReader().getPixels(0, 0, w, h, PixelFormat.getIntArgbInstance(), argb, 0, w);
        png.setRGB(0, 0, w, h, argb, 0, w);
        Path file = Path.of("target", name);
        Files.createDirectories(file.getParent());
        ImageIO.write(png, "png", file.toFile());
        return file;
    }
}
