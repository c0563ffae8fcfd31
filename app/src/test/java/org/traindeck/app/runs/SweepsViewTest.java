package org.traindeck.app.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;
import static org.traindeck.app.FxWait.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javafx.scene.Scene;
import javafx.scene.control.TableColumn;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.TestDialogs;
import org.traindeck.app.run.Dashboard;
import org.traindeck.app.run.RunController;
import org.traindeck.app.tasks.CurrentThreadTaskExecutor;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.api.sweeps.Sweep;
import org.traindeck.engine.api.sweeps.Trial;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.faults.FaultPlan;
import org.traindeck.engine.queue.QueueRunner;
import org.traindeck.engine.queue.RunQueue;
import org.traindeck.engine.queue.RunStarter;
import org.traindeck.engine.sweep.SweepParser;
import org.traindeck.engine.sweep.SweepResults;
import org.traindeck.engine.sweep.SweepSpec;
import org.traindeck.engine.sweep.SweepTrials;
import org.traindeck.engine.train.LiveRun;

/** A real three-trial sweep as the Sweeps view shows it: the table best first and marked, the metric plotted. */
@ExtendWith(ApplicationExtension.class)
class SweepsViewTest {

    @TempDir
    static Path dir;

    private SweepsViewModel model;
    private SweepsView view;
    private RunController controller;

    /** What `traindeck sweep` does, through the engine's own classes. */
    @BeforeAll
    static void runASweep() throws Exception {
        Files.writeString(dir.resolve("base.json"), """
                {"name": "base", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"epochs": 2, "batchSize": 20, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """);
        Path file = dir.resolve("sweep.json");
        Files.writeString(file, """
                {"name": "lr", "base": "base.json", "parameters": {"stages[0].optimizer.learningRate": [0.0001, 0.003, 0.03]},
                 "metric": "val/accuracy", "goal": "max"}
                """);
        SweepSpec spec = SweepParser.load(file);
        Path queue = dir.resolve("runs/sweep-lr.json");
        for (SweepTrials.Trial t : SweepTrials.expand(spec)) {
            RunQueue.add(queue, t.label(), null, ConfigWriter.toJsonWithAbsolutePaths(t.config()));
        }
        RunQueue.describeSweep(queue, SweepResults.describe(spec));
        new QueueRunner(queue, (DeviceSelection) null, RunStarter.inProcess(DeviceDiscovery.system(), FaultPlan.NONE))
                .runAll(new QueueRunner.Listener() {
                    @Override
                    public void starting(QueueEntry entry, LiveRun run, boolean resumed) {}

                    @Override
                    public void ended(QueueEntry entry, RunResult result) {}
                });
    }

    @Start
    void start(Stage stage) {
        Engine engine = Engine.local();
        CurrentThreadTaskExecutor tasks = new CurrentThreadTaskExecutor();
        controller = new RunController(new Dashboard(), engine, tasks);
        model = new SweepsViewModel(engine, tasks, controller);
        view = new SweepsView(model, controller, new TestDialogs(), () -> dir);
        stage.setScene(new Scene(view, 900, 700));
        stage.show();
        model.folderProperty().set(dir.resolve("runs"));
    }

    /** Run sweep… is disabled while a run goes on; a run begun while the file was being checked keeps its place. */
    @Test
    void aSweepCheckedWhileAnotherRunGoesOnWaitsInItsQueue(FxRobot robot) throws Exception {
        Path busy = dir.resolve("busy.json");
        Files.writeString(
                busy,
                Files.readString(dir.resolve("base.json"))
                        .replace("\"base\"", "\"busy\"")
                        .replace("\"epochs\": 2", "\"epochs\": 500"));
        ValidationResult parsed = Configs.load(busy);
        assertThat(parsed.errors()).isEmpty();
        robot.interact(() -> controller.start(parsed));
        waitUntil("the other run to train", () -> controller.stateProperty().get() == RunController.State.RUNNING);

        robot.interact(() -> model.run(dir.resolve("sweep.json")));

        assertThat(onFx(() -> model.messageProperty().get()))
                .startsWith("Sweep lr: 3 trial(s)")
                .contains("Another run is in progress");
        assertThat(onFx(() -> controller.currentProperty().get().config().name()))
                .isEqualTo("busy");
        robot.interact(controller::stop);
        waitUntil("the other run to stop", () -> controller.stateProperty().get() == RunController.State.IDLE);
    }

    /**
     * The tab is made when it is first opened, after the sweeps were read: the sweep its chooser shows is in the table
     * and the chart at once (it said "No sweep shown." until Refresh), and each column's title reads whole.
     */
    @Test
    void aViewMadeAfterTheSweepsWereReadShowsTheChosenOneAtOnceWithWholeTitles(FxRobot robot) {
        assertThat(onFx(() -> model.shownProperty().get())).isNotNull();
        SweepsView late = onFx(() -> {
            SweepsView v = new SweepsView(model, controller, new TestDialogs(), () -> dir);
            Stage other = new Stage();
            other.setScene(new Scene(v, 900, 700));
            other.show();
            return v;
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(onFx(() -> late.table().getItems().size())).isEqualTo(3);
        assertThat(onFx(late::plotted)).hasSize(3);
        for (TableColumn<Trial, ?> c : onFx(() -> List.copyOf(late.table().getColumns()))) {
            double title = onFx(() -> new Text(c.getText()).getLayoutBounds().getWidth());
            assertThat(onFx(c::getWidth)).as("the column '%s'", c.getText()).isGreaterThan(title);
        }
        robot.interact(() -> late.getScene().getWindow().hide());
    }

    @Test
    void theSweepIsATableBestFirstAndAChartOfTheMetricAgainstItsParameter(FxRobot robot) {
        Sweep sweep = onFx(() -> model.shownProperty().get());
        assertThat(sweep.name()).isEqualTo("lr");
        assertThat(sweep.trials())
                .hasSize(3)
                .allSatisfy(t -> assertThat(t.status()).isEqualTo(QueueEntry.Status.FINISHED));
        List<Trial> rows = onFx(() -> List.copyOf(view.table().getItems()));
        assertThat(rows).extracting(Trial::best).isSortedAccordingTo((a, b) -> Double.compare(b, a));
        assertThat(onFx(() -> view.table().getColumns().get(0).getCellData(0))).isEqualTo("★");
        assertThat(onFx(() -> view.table().getColumns().get(0).getCellData(1))).isEqualTo("");
        assertThat(onFx(() -> view.table().getColumns().get(2).getText()))
                .isEqualTo("stages[0].optimizer.learningRate");
        assertThat(rows)
                .extracting(t -> t.values().get("stages[0].optimizer.learningRate"))
                .containsExactlyInAnyOrder("0.0001", "0.003", "0.03");

        // three points, the learning rate on a log scale (it spans more than a decade)
        List<double[]> points = onFx(view::plotted);
        assertThat(points).hasSize(3);
        assertThat(points)
                .extracting(p -> Math.round(p[0] * 100) / 100.0)
                .containsExactlyInAnyOrder(-4.0, -2.52, -1.52);
        assertThat(points).allSatisfy(p -> assertThat(p[1]).isBetween(0.0, 1.0));
    }
}
