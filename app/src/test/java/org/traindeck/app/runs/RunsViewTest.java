package org.traindeck.app.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.stage.Stage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.app.run.Dashboard;
import org.traindeck.app.tasks.CurrentThreadTaskExecutor;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.library.RunSummary;
import org.traindeck.engine.train.RunResult;

/** The Runs view over two real runs: listed, filtered, selected, overlaid on the charts, their configs compared. */
@ExtendWith(ApplicationExtension.class)
class RunsViewTest {

    @TempDir
    static Path dir;

    private static Path fast;
    private static Path slow;

    private Dashboard dashboard;
    private RunsViewModel model;
    private RunsView view;

    private static Path train(String name, double learningRate) throws Exception {
        String json = """
                {"name": "%s", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"name": "main", "epochs": 2, "batchSize": 20, "optimizer": {"type": "adam", "learningRate": %s}}]}
                """.formatted(name, learningRate);
        RunHandle run = Engine.local().prepare(Configs.parse(json, dir).orThrow());
        run.start();
        RunResult result = run.completion().get(2, TimeUnit.MINUTES);
        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        return result.runDir();
    }

    @BeforeAll
    static void trainTwoRuns() throws Exception {
        fast = train("fast", 0.01);
        slow = train("slow", 0.0005);
    }

    @Start
    void start(Stage stage) {
        dashboard = new Dashboard();
        model = new RunsViewModel(Engine.local(), new CurrentThreadTaskExecutor(), dashboard.overlays());
        view = new RunsView(model);
        HBox root = new HBox(view, dashboard);
        HBox.setHgrow(dashboard, Priority.ALWAYS);
        stage.setScene(new Scene(root, 1300, 800));
        stage.show();
        model.folderProperty().set(dir.resolve("runs"));
    }

    private static Node runCell(FxRobot robot, int row) {
        Node rowCell = robot.lookup("#runs-table .table-row-cell").nth(row).query();
        return robot.from(rowCell).lookup(".table-cell").query();
    }

    private List<String> rows() {
        return onFx(() -> view.table().getItems().stream()
                .map(r -> r.folder().getFileName().toString())
                .toList());
    }

    @Test
    void theFoldersRunsAreListedAndFiltered(FxRobot robot) {
        assertThat(rows()).containsExactly("fast", "slow");
        assertThat(onFx(() -> robot.lookup("#runs-message").queryAs(Label.class).getText()))
                .startsWith("2 run(s) in ");
        // the figures' columns say which metric they hold
        assertThat(onFx(() -> view.table().getColumns().stream()
                        .filter(TableColumn::isVisible)
                        .map(TableColumn::getText)
                        .toList()))
                .contains("Best val/loss", "Last val/loss")
                .doesNotContain("Best", "Last", "Metric");
        RunSummary first = onFx(() -> view.table().getItems().get(0));
        assertThat(first.status()).isEqualTo("finished");
        assertThat(first.steps()).isEqualTo(24);

        robot.clickOn("#runs-filter").write("slo");
        assertThat(rows()).containsExactly("slow");
        robot.interact(() -> model.nameFilterProperty().set(""));
        robot.interact(() -> model.statusFilterProperty().set("failed"));
        assertThat(rows()).isEmpty();
        robot.interact(() -> model.statusFilterProperty().set("all"));
        assertThat(rows()).hasSize(2);
    }

    @Test
    void selectingTwoRunsOverlaysTheirCurvesAndShowsTheirDifference(FxRobot robot) {
        TableView<RunSummary> table = view.table();
        // a row is as wide as its columns, wider than the pane (the table scrolls sideways): click its first cell
        robot.clickOn(runCell(robot, 0));
        robot.press(KeyCode.CONTROL).clickOn(runCell(robot, 1)).release(KeyCode.CONTROL);
        assertThat(onFx(() -> table.getSelectionModel().getSelectedItems().size()))
                .isEqualTo(2);

        // one colour per run, named by the run, in the loss, validation and learning-rate charts
        for (String run : List.of("fast", "slow")) {
            assertThat(onFx(() -> dashboard
                            .lossChart()
                            .data("overlay:" + run + ":train")
                            .size()))
                    .isEqualTo(24);
            assertThat(onFx(() -> dashboard.lossChart().hasSeries("overlay:" + run + ":val")))
                    .isTrue();
            assertThat(onFx(() -> dashboard
                            .validationChart()
                            .data("overlay:" + run + ":" + MetricNames.VAL_ACCURACY)
                            .size()))
                    .isEqualTo(2);
            assertThat(onFx(() -> dashboard.lrChart().hasSeries("overlay:" + run + ":lr")))
                    .isTrue();
        }
        String differences = onFx(
                () -> robot.lookup("#runs-differences").queryAs(Label.class).getText());
        assertThat(differences)
                .contains("stages[0].optimizer.learningRate")
                .contains("0.01")
                .contains("5.0E-4");

        // a new run on the dashboard keeps the comparison; an empty selection takes it away
        robot.interact(dashboard::clearRun);
        assertThat(onFx(() -> dashboard.lossChart().data("overlay:fast:train").size()))
                .isEqualTo(24);
        robot.interact(() -> table.getSelectionModel().clearSelection());
        assertThat(onFx(() -> dashboard.lossChart().hasSeries("overlay:fast:train")))
                .isFalse();
        assertThat(onFx(() ->
                        robot.lookup("#runs-differences").queryAs(Label.class).getText()))
                .startsWith("Select two or more runs");
    }

    @Test
    void aRunFinishedSinceShowsAfterARefresh(FxRobot robot) throws Exception {
        Path third = train("third", 0.002);
        try {
            robot.clickOn("#runs-refresh");
            assertThat(rows()).containsExactly("fast", "slow", "third");
        } finally {
            try (var files = Files.walk(third)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
