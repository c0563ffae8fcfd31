package org.traindeck.app.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.traindeck.app.FxWait.onFx;

import java.awt.image.BufferedImage;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.stage.Stage;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.charts.SeriesBuffer;
import org.traindeck.app.run.Dashboard;
import org.traindeck.app.tasks.CurrentThreadTaskExecutor;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.api.runs.RunSummary;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.OshiHostProbe;
import org.traindeck.engine.devices.TelemetryMonitor;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.MetricTable;
import org.traindeck.engine.sinks.TfEventEncoder;
import org.traindeck.engine.sinks.TfRecordWriter;

/**
 * The Runs view over two real runs: listed, filtered, selected, overlaid on the charts, their configs compared; and
 * TensorBoard logs laid out as PyTorch's SummaryWriter writes them, opened beside them and overlaid.
 */
@ExtendWith(ApplicationExtension.class)
class RunsViewTest {

    @TempDir
    static Path dir;

    private static Path fast;
    private static Path slow;
    private static Path logs;
    /** What the logs chooser answers. */
    private static volatile Path chosenLogs;

    private Dashboard dashboard;
    private RunsViewModel model;
    private RunsView view;

    private static Path train(String name, double learningRate) throws Exception {
        String json = """
                {"name": "%s", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"name": "main", "epochs": 2, "batchSize": 20, "optimizer": {"type": "adam", "learningRate": %s}}]}
                """.formatted(name, learningRate);
        // a machine without energy counters, wherever the test runs
        Engine engine = Engine.withDevices(
                new DeviceDiscovery(NvidiaSmi.system(), new OshiHostProbe(), dir.resolve("no-powercap")),
                TelemetryMonitor.Settings.DEFAULT);
        RunHandle run = engine.openRun(Configs.parse(json, dir).orThrow());
        run.start();
        RunResult result = run.completion().get(2, TimeUnit.MINUTES);
        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        return result.runDir();
    }

    @BeforeAll
    static void trainTwoRuns() throws Exception {
        fast = train("fast", 0.01);
        slow = train("slow", 0.0005);
        logs = pytorchLogs(dir.resolve("pytorch/Nov29_01-00-00_host"));
    }

    /**
     * What PyTorch's SummaryWriter writes for 24 steps of add_scalar: the file-version record, then per step the
     * training loss, and every 12 steps the validation loss and an accuracy under a name the defaults do not map.
     */
    private static Path pytorchLogs(Path folder) throws Exception {
        Files.createDirectories(folder);
        double t0 = 1_764_378_000.0;
        Path file = folder.resolve("events.out.tfevents.1764378000.host.4242.0");
        try (OutputStream out = Files.newOutputStream(file)) {
            TfRecordWriter records = new TfRecordWriter(out);
            records.write(TfEventEncoder.fileVersion(t0));
            for (int step = 1; step <= 24; step++) {
                records.write(TfEventEncoder.scalar(t0 + 2 * step, step, "Loss/train", 1.2f - step * 0.03f));
                if (step % 12 == 0) {
                    records.write(TfEventEncoder.scalar(t0 + 2 * step, step, "Loss/val", 1.1f - step * 0.03f));
                    records.write(TfEventEncoder.scalar(t0 + 2 * step, step, "acc_on_val", 0.4f + step / 100f));
                }
            }
        }
        return folder;
    }

    @Start
    void start(Stage stage) {
        dashboard = new Dashboard();
        model = new RunsViewModel(Engine.local(), new CurrentThreadTaskExecutor(), dashboard.overlays());
        chosenLogs = logs;
        view = new RunsView(model, runDir -> {}, () -> chosenLogs);
        view.setMinWidth(560);
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
        return onFx(
                () -> view.table().getItems().stream().map(RunsViewModel::label).toList());
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
        // its best is written as the metric table writes the monitored metric
        TableColumn<RunSummary, ?> best = onFx(() -> view.table().getColumns().stream()
                .filter(c -> c.getText().equals("Best val/loss"))
                .findFirst()
                .orElseThrow());
        assertThat(onFx(() -> String.valueOf(best.getCellData(0))))
                .isEqualTo(MetricTable.of(MetricNames.VAL_LOSS).format().write(first.best()))
                .matches("\\d+\\.\\d{4}");
        // the energy column says why there is no figure
        TableColumn<RunSummary, ?> energy = onFx(() -> view.table().getColumns().stream()
                .filter(c -> c.getText().equals("Energy"))
                .findFirst()
                .orElseThrow());
        assertThat(onFx(() -> String.valueOf(energy.getCellData(0))))
                .isEqualTo("n/a (no RAPL counters or GPU power readings)");

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
    void tensorBoardLogsOfPyTorchAreListedBesideTheRunsAndOverlaid(FxRobot robot) throws Exception {
        String imported = "Nov29_01-00-00_host (TensorBoard)";
        robot.clickOn("#runs-open-tensorboard");
        assertThat(rows()).containsExactly("fast", "slow", imported);
        assertThat(onFx(() -> robot.lookup("#runs-message").queryAs(Label.class).getText()))
                .contains("Opened Nov29_01-00-00_host")
                .contains("Loss/train as train/loss")
                .contains("Loss/val as val/loss");
        RunSummary row = onFx(() -> view.table().getItems().get(2));
        assertThat(row.status()).isEqualTo("imported");
        assertThat(row.steps()).isEqualTo(24);
        assertThat(row.monitor()).isEqualTo("val/loss");
        assertThat(row.last()).isCloseTo(1.1 - 24 * 0.03, within(1e-6));

        robot.clickOn(rowOf(robot, "fast"));
        robot.press(KeyCode.CONTROL).clickOn(rowOf(robot, imported)).release(KeyCode.CONTROL);
        assertThat(onFx(() ->
                        view.table().getSelectionModel().getSelectedItems().size()))
                .isEqualTo(2);

        // the TensorBoard run's curves beside TrainDeck's, on its own elapsed time
        assertThat(onFx(() -> dashboard.lossChart().data("overlay:fast:train").size()))
                .isEqualTo(24);
        SeriesBuffer train = onFx(() -> dashboard.lossChart().data("overlay:" + imported + ":train"));
        assertThat(onFx(train::size)).isEqualTo(24);
        assertThat(onFx(() -> train.step(23))).isEqualTo(24);
        assertThat(onFx(() -> train.time(23))).isCloseTo(48, within(1e-6));
        assertThat(onFx(() -> dashboard
                        .lossChart()
                        .data("overlay:" + imported + ":val")
                        .size()))
                .isEqualTo(2);
        assertThat(onFx(() -> dashboard.validationChart().hasSeries("overlay:" + imported + ":val/accuracy")))
                .isFalse();

        // a tag the defaults do not know, mapped by hand: drawn as the run's accuracy, the selection kept
        robot.clickOn("#runs-tag-mapping").write("acc_on_val=val/accuracy").type(KeyCode.ENTER);
        assertThat(onFx(() ->
                        view.table().getSelectionModel().getSelectedItems().size()))
                .isEqualTo(2);
        assertThat(onFx(() -> dashboard
                        .validationChart()
                        .data("overlay:" + imported + ":val/accuracy")
                        .size()))
                .isEqualTo(2);
        assertThat(onFx(() -> dashboard.validationChart().hasSeries("overlay:fast:val/accuracy")))
                .isTrue();

        // the picture in docs/app.md (copied from target/ by hand when the view changes)
        robot.interact(dashboard::refreshCharts);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(Files.size(snapshot("runs-tensorboard.png"))).isGreaterThan(10_000);
    }

    /** The scene as a PNG in target/. */
    private Path snapshot(String name) throws Exception {
        WritableImage image = onFx(() -> view.getScene().snapshot(null));
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

    @Test
    void damagedLogsAreRefusedUnderTheListWithTheirByte(FxRobot robot) throws Exception {
        Path damaged = Files.createDirectories(dir.resolve("pytorch/damaged"));
        byte[] bytes;
        try (var files = Files.list(logs)) {
            bytes = Files.readAllBytes(files.findFirst().orElseThrow());
        }
        // a byte of the second record's data (the file-version record before it is 12 + 24 + 4 bytes)
        bytes[40 + 12 + 5] ^= 0x10;
        Files.write(damaged.resolve("events.out.tfevents.1764378000.host.4242.0"), bytes);
        chosenLogs = damaged;

        robot.clickOn("#runs-open-tensorboard");

        assertThat(onFx(() -> robot.lookup("#runs-message").queryAs(Label.class).getText()))
                .startsWith("Could not open the TensorBoard logs: ")
                .contains("byte 40:")
                .contains("checksum");
        assertThat(rows()).containsExactly("fast", "slow");
    }

    /** The table row showing {@code label} (the table re-uses its row cells as its items change). */
    private static Node rowOf(FxRobot robot, String label) {
        return robot.lookup("#runs-table .table-row-cell")
                .match((TableRow<RunSummary> r) ->
                        r.getItem() != null && RunsViewModel.label(r.getItem()).equals(label))
                .query();
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
