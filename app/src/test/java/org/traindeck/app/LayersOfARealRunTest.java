package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.traindeck.app.layers.LayerRow;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.ModelOverview;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.events.LayerMetrics.Figure;

/**
 * The U-Net sample trained from Start in the real window, with per-layer figures on every step: the Layers tab gets a
 * row for every layer the model table lists with parameters, each with its update ratio, and the latest weight and
 * gradient histograms, all from the engine's own events.
 */
class LayersOfARealRunTest extends WindowTest {

    private static void replace(FxRobot robot, TextArea json, String what, String with) {
        robot.interact(() -> {
            int at = json.getText().indexOf(what);
            assertThat(at).as(what).isNotNegative();
            json.replaceText(at, at + what.length(), with);
        });
    }

    @Test
    void theUnetSamplesLayersShowTheirFiguresAndHistograms(FxRobot robot, @TempDir Path out) throws Exception {
        fixture.dialogs.toOpen = WindowFixture.repoRoot().resolve("sample-configs/shapes-unet.json");
        robot.clickOn("#open");
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(1));
        TextArea json = robot.lookup("#json-editor").queryAs(TextArea.class);
        waitUntil("the sample to load", () -> json.getText().contains("\"name\": \"shapes-unet\""));
        replace(
                robot,
                json,
                "\"outputDir\": \"../runs\"",
                "\"outputDir\": \"" + out.toString().replace("\\", "/") + "\"");
        replace(
                robot,
                json,
                "\"logging\": { \"samples\"",
                "\"logging\": { \"layers\": { \"everySteps\": 1, \"histogramsEverySteps\": 2 }, \"samples\"");

        @SuppressWarnings("unchecked")
        TableView<ModelOverview.Node> table = robot.lookup("#model-table").queryAs(TableView.class);
        waitUntil(
                "the model's table",
                () -> onFx(() -> robot.lookup("#model-totals")
                                .queryAs(Label.class)
                                .getText())
                        .startsWith("total: "));
        Set<String> withParameters = onFx(() -> table.getItems().stream()
                .filter(n -> n.parameters() != null && n.parameters() > 0)
                .map(ModelOverview.Node::name)
                .collect(Collectors.toSet()));
        assertThat(withParameters).contains("enc1a", "bottom2", "dec1b");

        waitUntil("Start to be enabled", () -> !robot.lookup("#start").query().isDisabled());
        robot.clickOn("#start");
        robot.interact(
                () -> window.dashboard().chartsOrLayers().getSelectionModel().select(1));
        waitUntil(
                "every layer's figures and both histograms",
                () -> onFx(() -> {
                    List<LayerRow> rows = window.dashboard().layers().model().rows();
                    Set<String> shown = rows.stream().map(LayerRow::node).collect(Collectors.toSet());
                    return shown.containsAll(withParameters)
                            && rows.stream()
                                    .filter(r -> withParameters.contains(r.node()))
                                    .allMatch(r ->
                                            r.has(Figure.UPDATE_RATIO) && r.weights() != null && r.gradients() != null);
                }));
        LayerRow first = onFx(() -> window.dashboard().layers().model().find("enc1a"));
        assertThat(first.value(Figure.PARAM_NORM)).isPositive();
        assertThat(first.value(Figure.GRAD_NORM)).isPositive();
        assertThat(first.value(Figure.UPDATE_RATIO)).isBetween(1e-7, 1.0);
        assertThat(first.weights().count())
                .as("enc1a: 3×3×1×16 weights and 16 biases")
                .isEqualTo(160);
        assertThat(first.gradients().count()).isEqualTo(160);
        robot.interact(() -> window.dashboard().layers().refresh());

        // a picture of the real run's view, for the README
        WritableImage image = onFx(() -> window.dashboard().snapshot(null, null));
        int w = (int) image.getWidth();
        int h = (int) image.getHeight();
        int[] argb = new int[w * h];
        image.getPixelReader().getPixels(0, 0, w, h, PixelFormat.getIntArgbInstance(), argb, 0, w);
        BufferedImage picture = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        picture.setRGB(0, 0, w, h, argb, 0, w);
        Path png = Path.of("target", "layers-view-unet.png");
        Files.createDirectories(png.getParent());
        ImageIO.write(picture, "png", png.toFile());

        robot.clickOn("#stop");
        waitUntil("the run to stop", () -> window.controller().stateProperty().get() == RunController.State.IDLE);
        RunResult r = onFx(() -> window.controller().lastResultProperty().get());
        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.STOPPED);

        // the same run opened from its folder later shows its last histograms too, not only its figures
        robot.interact(() -> window.controller().openPastRun(r.runDir(), n -> {}));
        waitUntil(
                "the past run's figures and histograms",
                () -> onFx(() -> {
                    LayerRow enc1a = window.dashboard().layers().model().find("enc1a");
                    return enc1a != null
                            && enc1a.has(Figure.UPDATE_RATIO)
                            && enc1a.weights() != null
                            && enc1a.gradients() != null;
                }));
        assertThat(List.copyOf(fixture.dialogs.errors)).isEmpty();
    }
}
