package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.testfx.api.FxRobot;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.ModelOverview;
import org.traindeck.engine.api.runs.RunResult;

/** Each of the four model samples, opened in the window: its table shows with no problem, and Start trains it live. */
class GraphSamplesInTheAppTest extends WindowTest {

    @ParameterizedTest
    @ValueSource(strings = {"shapes-unet", "volumes-autoencoder", "text-gpt", "fashion-vit"})
    void theSampleShowsItsTableAndTrainsLive(String sample, FxRobot robot, @TempDir Path out) {
        // the Fashion-MNIST sample reads Debian's dataset-fashion-mnist, which .ci/run installs
        assumeTrue(
                !sample.startsWith("fashion") || Files.isDirectory(Path.of("/usr/share/datasets/fashion-mnist")),
                "needs Debian's dataset-fashion-mnist (apt-get install dataset-fashion-mnist)");
        fixture.dialogs.toOpen = WindowFixture.repoRoot().resolve("sample-configs/" + sample + ".json");
        robot.clickOn("#open");
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(1));
        TextArea json = robot.lookup("#json-editor").queryAs(TextArea.class);
        waitUntil("the sample to load", () -> json.getText().contains("\"name\": \"" + sample + "\""));
        robot.interact(() -> {
            String from = "\"outputDir\": \"../runs\"";
            int at = json.getText().indexOf(from);
            json.replaceText(
                    at, at + from.length(), "\"outputDir\": \"" + out.toString().replace("\\", "/") + "\"");
        });

        @SuppressWarnings("unchecked")
        TableView<ModelOverview.Node> table = robot.lookup("#model-table").queryAs(TableView.class);
        // the window opened with digits-mlp (4 nodes): its table stays until this sample's is worked out
        waitUntil(
                "the sample's table",
                () -> robot.lookup("#model-totals")
                                .queryAs(Label.class)
                                .getText()
                                .startsWith("total: ")
                        && onFx(() -> table.getItems().size()) > 5);
        List<ModelOverview.Node> nodes = onFx(() -> List.copyOf(table.getItems()));
        assertThat(nodes).hasSizeGreaterThan(5).allSatisfy(n -> {
            assertThat(n.problem()).isNull();
            assertThat(n.outputShape()).startsWith("[");
        });
        assertThat(onFx(() -> robot.lookup("#model-fit").queryAs(Label.class).getText()))
                .endsWith(": fits");

        waitUntil(
                "Start to be enabled",
                () -> !robot.lookup("#start").queryAs(Button.class).isDisabled());
        robot.clickOn("#start");
        waitUntil(
                "training steps (or the run's end)",
                () -> window.dashboard().lossChart().totalPoints() >= 3
                        || window.controller().lastResultProperty().get() != null);
        robot.clickOn("#stop");
        waitUntil("the run to stop", () -> window.controller().stateProperty().get() == RunController.State.IDLE);
        RunResult r = onFx(() -> window.controller().lastResultProperty().get());
        assertThat(r.status()).as(r.message()).isEqualTo(RunResult.Status.STOPPED);
        assertThat(r.steps()).isGreaterThanOrEqualTo(3);
        assertThat(r.runDir()).startsWith(out);
        assertThat(List.copyOf(fixture.dialogs.errors)).isEmpty();
    }
}
