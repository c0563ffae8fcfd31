package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TabPane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.devices.HostInfo;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.HostProbe;
import org.traindeck.engine.devices.NvidiaSmi;

/** On a host with little memory, Start refuses a stage that cannot fit, before anything runs, with a batch that fits. */
class FitRefusalFlowTest extends WindowTest {

    {
        // 16 MiB available: the host the window's engine sees
        fixture.devices = new DeviceDiscovery(new NvidiaSmi("", Duration.ofSeconds(1)), new HostProbe() {
            @Override
            public HostInfo host() {
                return new HostInfo("Test CPU", 2, 2, 65536, 16);
            }

            @Override
            public List<GraphicsCard> graphicsCards() {
                return List.of();
            }

            @Override
            public double cpuLoad() {
                return 0;
            }
        });
    }

    @Test
    void startRefusesAStageThatDoesNotFitWithTheBatchAndAccumulationThatDo(FxRobot robot, @TempDir Path dir)
            throws Exception {
        Path config = Files.writeString(dir.resolve("wide.json"), """
                {"name": "wide", "outputDir": "runs", "model": {"type": "graph", "layers": [
                  {"name": "conv1", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"},
                  {"name": "fc", "type": "dense", "units": 4096, "activation": "relu"}]},
                 "data": {"train": {"type": "synthetic", "samples": 64, "imageShape": [4, 4, 1], "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 4096}]}
                """);
        fixture.dialogs.toOpen = config;
        robot.clickOn("#open");
        waitUntil(
                "the config to validate",
                () -> !robot.lookup("#start").queryAs(Button.class).isDisabled());

        robot.clickOn("#start");
        waitUntil(
                "the refusal",
                () -> !fixture.dialogs.errors.isEmpty()
                        && window.controller().stateProperty().get() == RunController.State.IDLE);
        assertThat(List.copyOf(fixture.dialogs.errors))
                .singleElement()
                .asString()
                .startsWith("TrainDeck: The run could not start: stages[0].batchSize: batch 4096 needs about ")
                .contains("on cpu, which has 17 MB available")
                .contains("(line 5, column")
                .containsPattern(
                        "use batchSize \\d+ with accumulationSteps \\d+ \\(the same batch of 4096 per device per update\\)");
        assertThat(onFx(() -> List.copyOf(window.dashboard().log().getItems())))
                .anySatisfy(l -> assertThat(l).contains("use batchSize"));
        assertThat(dir.resolve("runs")).as("nothing ran, no run folder").doesNotExist();

        // the table beside the JSON says the same before Start
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(1));
        waitUntil(
                "the fit check under the table",
                () -> robot.lookup("#model-fit").queryAs(Label.class).getText().contains("does NOT fit"));
        assertThat(onFx(() ->
                        robot.lookup("#model-problems").queryAs(Label.class).getText()))
                .contains("stages[0].batchSize", "use batchSize ", "(line 5, column");
    }
}
