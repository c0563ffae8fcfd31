package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.traindeck.app.config.ModelSummaryPane;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.ModelOverview;
import org.traindeck.engine.api.runs.RunResult;

/**
 * The model's table in the real window, on a graph sample: it follows the JSON as it is edited, marks the node a
 * shape error is on, and the sample then trains live from Start.
 */
class ModelSummaryFlowTest extends WindowTest {

    @SuppressWarnings("unchecked")
    private static TableView<ModelOverview.Node> table(FxRobot robot) {
        return robot.lookup("#model-table").queryAs(TableView.class);
    }

    private static Optional<ModelOverview.Node> node(FxRobot robot, String name) {
        return onFx(() -> table(robot).getItems().stream()
                .filter(n -> n.name().equals(name))
                .findFirst());
    }

    private static void replaceInJson(FxRobot robot, String what, String with) {
        TextArea json = robot.lookup("#json-editor").queryAs(TextArea.class);
        robot.interact(() -> {
            int at = json.getText().indexOf(what);
            assertThat(at).as(what).isNotNegative();
            json.replaceText(at, at + what.length(), with);
        });
    }

    @Test
    void aModelOfTwoNamedInputsListsEachInputWithItsShape(FxRobot robot) {
        fixture.dialogs.toOpen = WindowFixture.repoRoot().resolve("sample-configs/shapes-colour.json");
        robot.clickOn("#open");
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(1));

        waitUntil("the two-input table", () -> node(robot, "both").isPresent());
        assertThat(onFx(() -> table(robot).getItems().stream()
                        .map(ModelOverview.Node::name)
                        .limit(2)
                        .toList()))
                .containsExactly("image", "colour");
        assertThat(node(robot, "image").get().outputShape()).isEqualTo("[16, 16, 1]");
        assertThat(node(robot, "colour").get().outputShape()).isEqualTo("[3]");
        assertThat(node(robot, "both").get().inputs()).containsExactly("picture", "code");
        assertThat(node(robot, "code").get().inputs()).containsExactly("colour");
    }

    /** A wrong value on the JSON tab is said once: listed under the model's table, counted by the status line. */
    @Test
    void aNegativeLearningRateIsSaidOnceOnTheJsonTab(FxRobot robot, @TempDir Path dir) throws IOException {
        String config = Files.readString(WindowFixture.repoRoot().resolve("sample-configs/digits-mlp.json"))
                .replace("\"learningRate\": 0.002", "\"learningRate\": -0.01")
                .replace(
                        "../data/digits/digits.csv.gz",
                        WindowFixture.repoRoot()
                                .resolve("data/digits/digits.csv.gz")
                                .toAbsolutePath()
                                .toString()
                                .replace("\\", "/"));
        assertThat(config).contains("-0.01");
        fixture.dialogs.toOpen = Files.writeString(dir.resolve("negative.json"), config);
        robot.clickOn("#open");
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(1));

        waitUntil(
                "the problem under the model's table",
                () -> onFx(() -> robot.lookup("#model-problems")
                                .queryAs(Label.class)
                                .getText())
                        .contains("must be > 0"));
        waitUntil(
                "the status line to count it",
                () -> onFx(() -> robot.lookup("#json-status")
                                .queryAs(Label.class)
                                .getText())
                        .equals("✖ 1 problem in the config, listed above"));
        List<String> saying = onFx(() -> robot
                .lookup(n -> n instanceof Labeled l
                        && l.getText() != null
                        && l.getText().contains("must be > 0")
                        && shown(n))
                .queryAll()
                .stream()
                .map(n -> ((Labeled) n).getText())
                .toList());
        assertThat(saying).as("what the JSON tab shows").hasSize(1);
    }

    private static boolean shown(Node n) {
        for (Node at = n; at != null; at = at.getParent()) {
            if (!at.isVisible()) {
                return false;
            }
        }
        return n.getScene() != null;
    }

    @Test
    void theGraphSamplesTableFollowsTheJsonMarksAShapeErrorAndTheSampleTrainsLive(FxRobot robot, @TempDir Path out) {
        fixture.dialogs.toOpen = WindowFixture.repoRoot().resolve("sample-configs/digits-graph.json");
        robot.clickOn("#open");
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(1));

        // the table as validate --summary prints it: 8×8 digits, a residual add, a pool that halves them
        waitUntil(
                "the sample's table",
                () -> node(robot, "conv3")
                        .map(ModelOverview.Node::outputShape)
                        .orElse("")
                        .equals("[4, 4, 32]"));
        assertThat(onFx(() -> table(robot).getItems().stream()
                        .map(ModelOverview.Node::name)
                        .toList()))
                .containsExactly("input", "conv1", "conv2", "skip", "pool", "conv3", "gap", "drop", "fc", "output");
        assertThat(node(robot, "skip")).get().satisfies(n -> {
            assertThat(n.inputs()).containsExactly("conv1", "conv2");
            assertThat(n.outputShape()).isEqualTo("[8, 8, 16]");
        });
        assertThat(node(robot, "conv1").get().parameters()).isEqualTo(160L);
        assertThat(onFx(() -> robot.lookup("#model-totals").queryAs(Label.class).getText()))
                .isEqualTo("total: 9,882 parameters");
        assertThat(onFx(() -> robot.lookup("#model-fit").queryAs(Label.class).getText()))
                .contains("activations at batch 32", ": fits");

        // a pool window larger than its 8×8 input: the error is on the pool's row, highlighted
        replaceInJson(robot, "\"maxPool2d\", \"size\": 2", "\"maxPool2d\", \"size\": 16");
        waitUntil(
                "the error on the pool's row",
                () -> node(robot, "pool")
                        .map(ModelOverview.Node::problem)
                        .orElse("")
                        .contains("'pool'"));
        assertThat(node(robot, "pool").get().problem()).contains("layers[3] 'pool'", "(line 11, column");
        assertThat(node(robot, "conv1").get().problem()).isNull();
        waitUntil(
                "the pool's row to be marked",
                () -> robot.lookup("." + ModelSummaryPane.ROW_ERROR).queryAll().stream()
                        .anyMatch(r -> r instanceof TableRow<?> row
                                && row.getItem() instanceof ModelOverview.Node n
                                && n.name().equals("pool")));
        assertThat(onFx(() -> robot.lookup("#model-totals").queryAs(Label.class).getText()))
                .startsWith("The model does not build: 1 node(s)");
        // the config itself is valid JSON for the schema, but the status line must not say "valid" for it
        waitUntil(
                "the status line to name the node",
                () -> onFx(() -> robot.lookup("#json-status")
                                .queryAs(Label.class)
                                .getText())
                        .startsWith("✖ the model does not build: "));
        // the pane lists the node's problem just above: the status line points there rather than say it again
        assertThat(onFx(() -> robot.lookup("#json-status").queryAs(Label.class).getText()))
                .isEqualTo("✖ the model does not build: see the problem above");
        assertThat(onFx(() ->
                        robot.lookup("#model-problems").queryAs(Label.class).getText()))
                .contains("'pool'");

        // fixed, and sent to a temporary folder: Start trains the sample live
        replaceInJson(robot, "\"maxPool2d\", \"size\": 16", "\"maxPool2d\", \"size\": 2");
        replaceInJson(
                robot,
                "\"outputDir\": \"../runs\"",
                "\"outputDir\": \"" + out.toString().replace("\\", "/") + "\"");
        waitUntil(
                "the table without errors",
                () -> node(robot, "pool")
                                .map(n -> n.problem() == null && "[4, 4, 16]".equals(n.outputShape()))
                                .orElse(false)
                        && robot.lookup("." + ModelSummaryPane.ROW_ERROR)
                                .queryAll()
                                .isEmpty());
        waitUntil(
                "the status line to say valid again",
                () -> onFx(() -> robot.lookup("#json-status")
                                .queryAs(Label.class)
                                .getText())
                        .equals("✔ valid"));
        waitUntil(
                "Start to be enabled",
                () -> !robot.lookup("#start").queryAs(Button.class).isDisabled());
        robot.clickOn("#start");
        waitUntil(
                "the graph to train: steps arrive",
                () -> window.dashboard().lossChart().totalPoints() > 30);
        robot.clickOn("#stop");
        waitUntil("the run to stop", () -> window.controller().stateProperty().get() == RunController.State.IDLE);
        RunResult r = onFx(() -> window.controller().lastResultProperty().get());
        assertThat(r.status()).isEqualTo(RunResult.Status.STOPPED);
        assertThat(r.steps()).isGreaterThan(30);
        assertThat(r.runDir()).startsWith(out);
        assertThat(List.copyOf(fixture.dialogs.errors)).isEmpty();
    }
}
