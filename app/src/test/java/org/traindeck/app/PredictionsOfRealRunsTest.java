package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Slider;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextArea;
import javafx.scene.image.ImageView;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.testfx.api.FxRobot;
import org.traindeck.app.predictions.PredictionsViewModel;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.events.SamplesEvent;

/**
 * The U-Net, classifier, GPT and diffusion samples, each trained briefly from Start in the real window at 1360×860:
 * the Predictions tab shows their examples as the engine predicted them after each epoch (masks over images, labels
 * with their top classes, continued prompts, generated pictures beside the true ones), with every picture decoded, and the slider goes back to the first epoch.
 * A picture of each view goes to target/ (copied into docs/ for docs/app.md).
 */
class PredictionsOfRealRunsTest extends WindowTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "shapes-unet|\"epochs\": 8|\"epochs\": 2|\"numClasses\": 3,|\"numClasses\": 3, \"limit\": 200,",
                "fashion-mnist-lenet|\"limit\": 10000|\"limit\": 800|\"limit\": 2000|\"limit\": 200",
                "text-gpt|\"epochs\": 10|\"epochs\": 2|\"stride\": 16 }|\"stride\": 16, \"limit\": 160 }",
                "shapes-diffusion|\"epochs\": 15|\"epochs\": 2|\"everyEpochs\": 5, \"steps\": 25|\"everyEpochs\": 1, \"steps\": 10"
            })
    void theSamplesPredictionsShowAfterEachEpoch(
            String sample, String from1, String to1, String from2, String to2, FxRobot robot, @TempDir Path out)
            throws Exception {
        // the Fashion-MNIST sample reads Debian's dataset-fashion-mnist, which .ci/run installs
        assumeTrue(
                !sample.startsWith("fashion") || Files.isDirectory(Path.of("/usr/share/datasets/fashion-mnist")),
                "needs Debian's dataset-fashion-mnist (apt-get install dataset-fashion-mnist)");
        robot.interact(() -> {
            Stage stage = (Stage) window.scene().getWindow();
            stage.setWidth(1360);
            stage.setHeight(860);
        });
        fixture.dialogs.toOpen = WindowFixture.repoRoot().resolve("sample-configs/" + sample + ".json");
        robot.clickOn("#open");
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(1));
        TextArea json = robot.lookup("#json-editor").queryAs(TextArea.class);
        waitUntil("the sample to load", () -> json.getText().contains("\"name\": \"" + sample + "\""));
        replace(
                robot,
                json,
                "\"outputDir\": \"../runs\"",
                "\"outputDir\": \"" + out.toString().replace("\\", "/") + "\"");
        replace(robot, json, from1, to1);
        replace(robot, json, from2, to2);
        assertThat(json.getText()).contains("\"samples\": { \"count\": 8, \"everyEpochs\": 1 }");

        waitUntil(
                "Start to be enabled",
                () -> !robot.lookup("#start").queryAs(Button.class).isDisabled());
        robot.clickOn("#start");
        TabPane side = window.dashboard().chartsOrLayers();
        robot.interact(() -> side.getSelectionModel()
                .select(side.getTabs().stream()
                        .filter(t -> "tab-predictions".equals(t.getId()))
                        .findFirst()
                        .orElseThrow()));
        waitUntil(
                "the run to end",
                () -> window.controller().stateProperty().get() == RunController.State.IDLE
                        && window.controller().lastResultProperty().get() != null);
        RunResult r = onFx(() -> window.controller().lastResultProperty().get());
        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.FINISHED);

        PredictionsViewModel model = window.dashboard().predictions().model();
        waitUntil("both epochs' predictions", () -> onFx(() -> model.intervals().size()) == 2);
        List<SamplesEvent> intervals = onFx(() -> List.copyOf(model.intervals()));
        SamplesEvent last = intervals.get(1);
        assertThat(onFx(model::shown)).isSameAs(last);
        switch (sample) {
            case "shapes-unet" ->
                assertThat(last.samples()).hasSize(8).allSatisfy(s -> {
                    assertThat(s.pictures())
                            .extracting(SamplesEvent.Picture::label)
                            .containsExactly("input", "true", "predicted");
                    assertThat(s.predicted()).startsWith("pixel accuracy");
                });
            case "fashion-mnist-lenet" ->
                assertThat(last.samples()).hasSize(8).allSatisfy(s -> {
                    assertThat(s.truth()).matches("\\d");
                    assertThat(s.top()).hasSize(5);
                    assertThat(s.pictures()).hasSize(1);
                });
            case "shapes-diffusion" ->
                assertThat(last.samples()).hasSize(8).allSatisfy(s -> {
                    assertThat(s.pictures())
                            .extracting(SamplesEvent.Picture::label)
                            .containsExactly("generated", "truth");
                    assertThat(s.predicted()).startsWith("PSNR ");
                });
            default ->
                assertThat(last.samples()).hasSize(4).allSatisfy(s -> {
                    assertThat(s.prompt()).hasSize(32);
                    assertThat(s.text()).hasSize(48);
                });
        }
        int cards = last.samples().size();
        waitUntil(
                "a card per example, every picture decoded",
                () -> onFx(() -> {
                    List<Node> shown =
                            List.copyOf(robot.lookup(".prediction-card").queryAll());
                    List<ImageView> pictures = robot.lookup(".prediction-picture").queryAllAs(ImageView.class).stream()
                            .toList();
                    return shown.size() == cards
                            && pictures.size()
                                    == last.samples().stream()
                                            .mapToInt(s -> s.pictures().size())
                                            .sum()
                            && pictures.stream()
                                    .allMatch(v -> v.getImage() != null
                                            && v.getImage().getProgress() >= 1
                                            && !v.getImage().isError()
                                            && v.getImage().getWidth() > 0);
                }));
        if (sample.equals("text-gpt")) {
            assertThat(robot.lookup(".prediction-generated").queryAll()).hasSize(4);
        } else if (sample.startsWith("fashion")) {
            assertThat(robot.lookup(".prediction-score").queryAll()).hasSize(8 * 5);
        }
        snapshot(Path.of("target", "predictions-" + sample + ".png"));

        // back to the first epoch, and the newest again
        Slider slider = robot.lookup("#predictions-slider").queryAs(Slider.class);
        robot.interact(() -> slider.setValue(0));
        assertThat(onFx(model::shown)).isSameAs(intervals.get(0));
        assertThat(onFx(() -> robot.lookup("#predictions-where").queryLabeled().getText()))
                .startsWith("1 of 2 · epoch 1");
        robot.interact(() -> slider.setValue(1));
        assertThat(onFx(model::shown)).isSameAs(last);
        assertThat(List.copyOf(fixture.dialogs.errors)).isEmpty();
    }

    private static void replace(FxRobot robot, TextArea json, String what, String with) {
        robot.interact(() -> {
            int at = json.getText().indexOf(what);
            assertThat(at).as(what).isNotNegative();
            json.replaceText(at, at + what.length(), with);
        });
    }

    private void snapshot(Path png) throws Exception {
        WritableImage image = onFx(() -> window.dashboard().snapshot(null, null));
        int w = (int) image.getWidth();
        int h = (int) image.getHeight();
        int[] argb = new int[w * h];
        image.getPixelReader().getPixels(0, 0, w, h, PixelFormat.getIntArgbInstance(), argb, 0, w);
        BufferedImage picture = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        picture.setRGB(0, 0, w, h, argb, 0, w);
        Files.createDirectories(png.getParent());
        ImageIO.write(picture, "png", png.toFile());
    }
}
