package org.traindeck.app.devices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.onFx;

import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javafx.scene.Scene;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.audit.LayoutAudit;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.api.devices.HostInfo;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.events.TelemetryEvent;
import org.traindeck.engine.events.TelemetryNames;

/** The devices view model and view with a two-GPU inventory: input → config, config → view, telemetry → figures. */
@ExtendWith(ApplicationExtension.class)
class DevicesViewTest {

    private static final DeviceInventory TWO_GPUS = new DeviceInventory(
            new HostInfo("Test CPU", 8, 16, 64000, 32000),
            List.of(
                    new GpuInfo(0, "GPU-0", "Card A", null, 24000L, 100L, 3.0, 40.0, 60.0),
                    new GpuInfo(1, "GPU-1", "Card B", null, 24000L, 200L, 5.0, 42.0, 61.0)),
            null,
            List.of());

    private ConfigDocument document;
    private DevicesViewModel model;

    @Start
    void start(Stage stage) {
        document = new ConfigDocument(Path.of("").toAbsolutePath());
        document.load("{\"name\": \"d\", \"devices\": \"cpu\", \"seed\": 1}", null);
        model = new DevicesViewModel(document);
        stage.setScene(new Scene(new DeviceSelector(model), 700, 500));
        stage.show();
        model.show(TWO_GPUS);
    }

    @AfterEach
    void tearDown() {
        document.shutdown();
    }

    @Test
    void tickingGpusWritesTheConfigAndUntickingThemAllMeansTheCpu(FxRobot robot) {
        assertThat(onFx(() ->
                        robot.lookup("#device-status").queryAs(Label.class).getText()))
                .isEqualTo("2 GPU(s) found");
        robot.clickOn("#device-gpu1");
        assertThat(onFx(document::text)).isEqualTo("{\"name\": \"d\", \"devices\": [1], \"seed\": 1}");
        robot.clickOn("#device-gpu0");
        assertThat(onFx(document::text)).contains("\"devices\": [0, 1]");
        assertThat(onFx(() ->
                        robot.lookup("#device-cpu").queryAs(CheckBox.class).isSelected()))
                .isFalse();
        robot.clickOn("#device-gpu0").clickOn("#device-gpu1");
        assertThat(onFx(document::text)).contains("\"devices\": \"cpu\"");
        assertThat(onFx(() ->
                        robot.lookup("#device-cpu").queryAs(CheckBox.class).isSelected()))
                .isTrue();
    }

    @Test
    void theViewFollowsTheConfigWhenTheJsonIsEdited(FxRobot robot) {
        robot.interact(() -> document.textProperty().set("{\"name\": \"d\", \"devices\": [0], \"seed\": 1}"));
        assertThat(onFx(() ->
                        robot.lookup("#device-gpu0").queryAs(CheckBox.class).isSelected()))
                .isTrue();
        assertThat(onFx(() ->
                        robot.lookup("#device-gpu1").queryAs(CheckBox.class).isSelected()))
                .isFalse();
        robot.interact(() -> document.textProperty().set("{\"name\": \"d\", \"devices\": \"cpu:3\", \"seed\": 1}"));
        assertThat(onFx(() -> model.selectionProperty().get())).isEqualTo(DeviceSelection.cpuWorkers(3));
        assertThat(onFx(() -> model.cpuWorkersProperty().get())).isEqualTo(3);
        assertThat(onFx(() ->
                        robot.lookup("#device-cpu").queryAs(CheckBox.class).isSelected()))
                .isTrue();
        // more workers from the view go to the config
        robot.interact(() -> model.cpuWorkersProperty().set(4));
        assertThat(onFx(document::text)).contains("\"devices\": \"cpu:4\"");
    }

    @Test
    void theClusterChoiceWritesTheMasterAndExecutorsAndIsDisabledWithItsReasonWhenTheClusterModuleIsMissing(
            FxRobot robot) {
        // the app's own class path, as the desktop package has it: without the cluster module
        boolean present = Engine.clusterModulePresent();
        assertThat(present).isFalse();
        robot.interact(() -> model.showClusterModule(present));
        assertThat(onFx(() -> robot.lookup("#cluster-note").queryAs(Label.class).getText()))
                .contains("without TrainDeck's cluster module")
                .contains("./traindeck train CONFIG");
        assertThat(onFx(() -> robot.lookup("#device-cluster").query().isDisabled()))
                .as("cannot be chosen here")
                .isTrue();

        robot.interact(() -> model.showClusterModule(true));
        assertThat(onFx(() -> robot.lookup("#cluster-note").queryAs(Label.class).getText()))
                .isEmpty();
        robot.clickOn("#device-cluster");
        assertThat(onFx(document::text))
                .as("no address yet")
                .isEqualTo("{\"name\": \"d\", \"devices\": \"cpu\", \"seed\": 1}");
        robot.clickOn("#cluster-address").write("spark://10.0.0.7:7077");
        robot.interact(() -> model.executorsProperty().set(3));
        assertThat(onFx(document::text))
                .contains("\"cluster\": \"spark://10.0.0.7:7077\"")
                .contains("\"executors\": 3");
        assertThat(onFx(() ->
                        robot.lookup("#device-cpu").queryAs(CheckBox.class).isSelected()))
                .isFalse();

        // choosing this machine's CPU drops the cluster
        robot.clickOn("#device-cpu");
        assertThat(onFx(document::text)).doesNotContain("cluster").contains("\"devices\": \"cpu\"");
        assertThat(onFx(() ->
                        robot.lookup("#device-cluster").queryAs(CheckBox.class).isSelected()))
                .isFalse();

        // and the view follows a config that names a cluster
        robot.interact(() -> document.textProperty()
                .set("{\"name\": \"d\", \"parallel\": {\"cluster\": \"spark://m:7077\", \"executors\": 4}}"));
        assertThat(onFx(() ->
                        robot.lookup("#device-cluster").queryAs(CheckBox.class).isSelected()))
                .isTrue();
        assertThat(onFx(() -> robot.lookup("#cluster-address")
                        .queryAs(TextField.class)
                        .getText()))
                .isEqualTo("spark://m:7077");
        assertThat(onFx(() -> model.executorsProperty().get())).isEqualTo(4);

        // without the module, a config that names a cluster still shows it chosen, and it can be unticked
        robot.interact(() -> model.showClusterModule(false));
        assertThat(onFx(() -> robot.lookup("#device-cluster").query().isDisabled()))
                .isFalse();
        robot.clickOn("#device-cluster");
        assertThat(onFx(document::text)).doesNotContain("cluster");
        assertThat(onFx(() -> robot.lookup("#device-cluster").query().isDisabled()))
                .isTrue();
    }

    /**
     * The view once heard the figures through a read-only wrapper that only the map's weak listener held: the first
     * garbage collection (any time, more often on a busy machine) cut the labels off, and they froze. A collection is
     * made to happen here, before the refresh, so that it cannot depend on luck.
     */
    @Test
    void aLongNoteWrapsInsteadOfBeingCutOff(FxRobot robot) {
        // the note a real H200 machine gets with CUDA_VISIBLE_DEVICES=1
        String note = "CUDA_VISIBLE_DEVICES=1 shows runs none of this machine's GPUs (gpu0) (its entry \"1\" names no"
                + " GPU here, so CUDA ignores it and every entry after it): a run that asks for a GPU is refused, and"
                + " \"all\" trains on the CPU";
        DeviceInventory withNote = new DeviceInventory(TWO_GPUS.host(), TWO_GPUS.gpus(), null, List.of(note));
        robot.interact(() -> model.show(withNote));
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(onFx(() -> robot.lookup((Label l) -> l.getText().endsWith("trains on the CPU"))
                        .queryAll()
                        .size()))
                .isEqualTo(1);
        assertThat(onFx(() -> LayoutAudit.audit(
                                robot.lookup("#device-status")
                                        .query()
                                        .getScene()
                                        .getRoot(),
                                "devices")
                        .lines()))
                .isEmpty();
    }

    @Test
    void telemetryReachesTheFiguresAtTheNextRefresh(FxRobot robot) throws Exception {
        collectGarbage();
        model.accept(TelemetryEvent.figure(
                0, TelemetryNames.GPU_PREFIX + "1/" + TelemetryNames.MEMORY_USED_MIB, "gpu1", 5000));
        model.accept(TelemetryEvent.figure(
                0, TelemetryNames.GPU_PREFIX + "1/" + TelemetryNames.MEMORY_TOTAL_MIB, "gpu1", 24000));
        assertThat(onFx(() -> robot.lookup("#live-gpu1").queryAs(Label.class).getText()))
                .startsWith("200 / 24000 MiB");
        robot.interact(model::refresh);
        assertThat(onFx(() -> robot.lookup("#live-gpu1").queryAs(Label.class).getText()))
                .startsWith("5000 / 24000 MiB");
    }

    /** Returns once a full collection has cleared what was only weakly held. */
    private static void collectGarbage() throws TimeoutException {
        WeakReference<Object> sentinel = new WeakReference<>(new Object());
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> {
            System.gc();
            return sentinel.get() == null;
        });
    }
}
