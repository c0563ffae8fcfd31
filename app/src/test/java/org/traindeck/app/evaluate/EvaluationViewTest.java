package org.traindeck.app.evaluate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.waitUntil;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.traindeck.app.run.Dashboard;
import org.traindeck.app.run.EndOfRunSummary;
import org.traindeck.app.run.RunSummaryPane;
import org.traindeck.app.runs.RunsView;
import org.traindeck.app.runs.RunsViewModel;
import org.traindeck.app.tasks.CurrentThreadTaskExecutor;
import org.traindeck.app.tasks.FxTaskExecutor;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.api.runs.ClassFigures;
import org.traindeck.engine.api.runs.RunResult;

/**
 * Evaluate from the Runs tab and from the end-of-run summary on a real run: worked out off the FX thread, then the
 * figures, the confusion matrix as a heat map with its counts, and the per-class table, as evaluation.json has them.
 */
@ExtendWith(ApplicationExtension.class)
class EvaluationViewTest {

    @TempDir
    static Path dir;

    private static Path run;

    /** Whether each piece of background work ran on the FX thread. */
    private final List<Boolean> workOnFxThread = new CopyOnWriteArrayList<>();

    private final TaskExecutor background = new FxTaskExecutor();
    private EvaluationViewModel evaluations;
    private RunSummaryPane summary;

    @BeforeAll
    static void train() throws Exception {
        String json = """
                {"name": "three", "outputDir": "runs", "seed": 5, "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4, "numClasses": 3}, "validationSplit": 0.2},
                 "stages": [{"name": "main", "epochs": 2, "batchSize": 20, "optimizer": {"type": "adam", "learningRate": 0.01}}]}
                """;
        RunHandle handle = Engine.local().openRun(Configs.parse(json, dir).orThrow());
        handle.start();
        RunResult result = handle.completion().get(2, TimeUnit.MINUTES);
        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        run = result.runDir();
    }

    @Start
    void start(Stage stage) {
        TaskExecutor recording = new TaskExecutor() {
            @Override
            public <T> void execute(
                    Callable<T> work, Consumer<? super T> onSuccess, Consumer<? super Exception> onFailure) {
                background.execute(
                        () -> {
                            workOnFxThread.add(Platform.isFxApplicationThread());
                            return work.call();
                        },
                        onSuccess,
                        onFailure);
            }

            @Override
            public void shutdown() {
                background.shutdown();
            }
        };
        evaluations = new EvaluationViewModel(Engine.local(), recording);
        RunsViewModel runs =
                new RunsViewModel(Engine.local(), new CurrentThreadTaskExecutor(), new Dashboard().overlays());
        RunsView view = new RunsView(runs, evaluations::evaluate);
        summary = new RunSummaryPane();
        summary.setEvaluator(evaluations::evaluate);
        EvaluationPane pane = new EvaluationPane(evaluations);
        HBox.setHgrow(pane, Priority.ALWAYS);
        stage.setScene(new Scene(new HBox(new VBox(summary, view), pane), 1300, 850));
        stage.show();
        runs.folderProperty().set(dir.resolve("runs"));
    }

    @AfterEach
    void stop() {
        background.shutdown();
    }

    @Test
    void evaluateOnTheSelectedRunShowsItsFiguresHeatMapAndClasses(FxRobot robot) throws Exception {
        assertThat(onFx(() ->
                        robot.lookup("#runs-evaluate").queryAs(Button.class).isDisabled()))
                .isTrue();
        robot.clickOn(robot.lookup("#runs-table .table-row-cell").nth(0).<Node>query());
        robot.clickOn("#runs-evaluate");

        waitUntil("the evaluation", () -> evaluations.evaluationProperty().get() != null);
        assertThat(workOnFxThread).containsOnly(false).isNotEmpty();
        waitUntil(
                "the progress to reach the end",
                () -> evaluations.progressProperty().get() == 1.0);
        assertThat(onFx(() -> evaluations.busyProperty().get())).isFalse();
        JsonNode written =
                new ObjectMapper().readTree(run.resolve("evaluation.json").toFile());
        String accuracy = String.format(
                Locale.ROOT,
                "%.4f",
                written.path("figures").path("val/accuracy").asDouble());
        assertThat(onFx(() -> robot.lookup("#evaluation-figure-val-accuracy")
                        .queryAs(Label.class)
                        .getText()))
                .isEqualTo(accuracy);
        assertThat(onFx(() -> robot.lookup("#evaluation-figure-val-loss")
                        .queryAs(Label.class)
                        .getText()))
                .isNotBlank();
        assertThat(onFx(() ->
                        robot.lookup("#evaluation-title").queryAs(Label.class).getText()))
                .contains("three")
                .contains("classification");
        assertThat(onFx(() ->
                        robot.lookup("#evaluation-message").queryAs(Label.class).getText()))
                .contains("best-main.tdckpt")
                .contains("validation split")
                .contains("60 samples");

        // the heat map: one cell per (true, predicted) pair, each with its count from the matrix
        assertThat(onFx(() -> robot.lookup(".confusion-cell").queryAll().size()))
                .isEqualTo(9);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                String cell = "#confusion-" + i + "-" + j;
                long count = written.path("confusionMatrix").get(i).get(j).asLong();
                assertThat(onFx(() -> robot.lookup(cell).queryAs(Label.class).getText()))
                        .isEqualTo(String.valueOf(count));
            }
        }
        TableView<ClassFigures> classes = robot.lookup("#evaluation-classes").queryTableView();
        assertThat(onFx(() -> classes.getItems().size())).isEqualTo(3);
        assertThat(onFx(() -> classes.getItems().get(1).support()))
                .isEqualTo(written.path("perClass").get(1).path("support").asLong());
        assertThat(onFx(() ->
                        classes.getColumns().stream().map(c -> c.getText()).toList()))
                .containsExactly("Class", "Support", "Precision", "Recall", "F1");
    }

    @Test
    void evaluateInTheEndOfRunSummaryEvaluatesThatRun(FxRobot robot) {
        robot.interact(() -> summary.show(
                new EndOfRunSummary(RunResult.Status.FINISHED, "Run finished: three", "", List.of(), run)));
        robot.clickOn("#run-summary-evaluate");

        waitUntil("the evaluation", () -> evaluations.evaluationProperty().get() != null);
        assertThat(onFx(() -> evaluations.evaluationProperty().get().runDir()))
                .isEqualTo(run.toAbsolutePath().normalize());
        assertThat(onFx(() -> robot.lookup(".confusion-cell").queryAll().size()))
                .isEqualTo(9);
    }

    @Test
    void aFolderWithoutCheckpointsSaysWhyNothingWasEvaluated(FxRobot robot) throws Exception {
        Path empty = Files.createDirectories(dir.resolve("runs-empty/nothing"));
        robot.interact(() -> evaluations.evaluate(empty));

        waitUntil("the refusal", () -> !evaluations.busyProperty().get());
        assertThat(onFx(() ->
                        robot.lookup("#evaluation-message").queryAs(Label.class).getText()))
                .startsWith("Could not evaluate nothing: ")
                .contains("has no checkpoints");
        assertThat(onFx(() -> robot.lookup(".confusion-cell").queryAll())).isEmpty();
    }
}
