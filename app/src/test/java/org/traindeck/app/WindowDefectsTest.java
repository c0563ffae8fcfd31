package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.FxWait.scrollIntoView;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TabPane;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/** Defects a new user met in the window, each seen through the real scene. */
class WindowDefectsTest extends WindowTest {

    @Test
    void atTheMinimumSizeNoFormLabelIsCut(FxRobot robot) {
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        robot.interact(() -> {
            Stage stage = (Stage) window.scene().getWindow();
            stage.setWidth(1100);
            stage.setHeight(720);
        });
        WaitForAsyncUtils.waitForFxEvents();
        List<String> cut = onFx(() -> robot.lookup("#config-form .label").queryAllAs(Label.class).stream()
                .filter(l -> l.isVisible() && !l.getText().isEmpty() && !l.isWrapText())
                .filter(l -> l.lookup(".text") instanceof Text t && !t.getText().equals(l.getText()))
                .map(Label::getText)
                .toList());
        assertThat(cut).isEmpty();
    }

    /** Runs overlaid for a comparison belong to it: opening another config takes them off the charts. */
    @Test
    void openingAnotherConfigTakesTheOverlaysAway(FxRobot robot, @TempDir Path dir) throws Exception {
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        robot.interact(() -> window.dashboard()
                .overlays()
                .show(
                        "other-run",
                        List.of(new MetricEvent("r", "main", 0, 0, 10, 0, 1, MetricNames.VAL_LOSS, 0.5, null)),
                        Color.RED));
        assertThat(onFx(() -> window.dashboard().lossChart().seriesKeys())).anyMatch(k -> k.startsWith("overlay:"));

        Path config = dir.resolve("another.json");
        Files.writeString(config, """
                {"name": "another", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}}, "stages": [{"epochs": 1}]}
                """);
        fixture.dialogs.toOpen = config;
        robot.clickOn("#open");
        waitUntil(
                "the other config",
                () -> config.equals(window.document().fileProperty().get()));
        assertThat(onFx(() -> window.dashboard().charts().stream()
                        .flatMap(c -> c.seriesKeys().stream())
                        .filter(k -> k.startsWith("overlay:"))
                        .toList()))
                .isEmpty();
    }

    @Test
    void ncclTogglesShowTheirWholeNames(FxRobot robot) {
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(3));
        waitUntil(
                "the NCCL tab",
                () -> robot.lookup("#nccl-NCCL_P2P_DISABLE .text").tryQuery().isPresent());

        assertThat(onFx(() -> robot.lookup("#nccl-NCCL_P2P_DISABLE .text")
                        .queryAs(Text.class)
                        .getText()))
                .isEqualTo("NCCL_P2P_DISABLE");
        assertThat(onFx(() -> robot.lookup("#nccl-NCCL_TIMEOUT .text")
                        .queryAs(Text.class)
                        .getText()))
                .isEqualTo("NCCL_TIMEOUT");
    }

    @Test
    void anImageOrAReadmeIsNotOpenedAsAConfig(FxRobot robot, @TempDir Path dir) throws Exception {
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        String before = onFx(() -> window.document().text());
        Path png = dir.resolve("chart.png");
        ImageIO.write(new BufferedImage(8, 8, BufferedImage.TYPE_INT_RGB), "png", png.toFile());
        Path readme = dir.resolve("README.md");
        Files.writeString(readme, "# TrainDeck\nnot a config\n");

        for (Path file : List.of(png, readme)) {
            fixture.dialogs.toOpen = file;
            robot.clickOn("#open");
        }

        assertThat(List.copyOf(fixture.dialogs.errors)).hasSize(2);
        assertThat(fixture.dialogs.errors.get(0)).contains("chart.png is not text");
        assertThat(fixture.dialogs.errors.get(1)).contains("README.md is not a run config");
        assertThat(onFx(() -> window.document().text())).isEqualTo(before);
        assertThat(fixture.preferences.recentFiles())
                .noneMatch(f -> f.endsWith("chart.png") || f.endsWith("README.md"));
    }

    @Test
    void resumingAnotherRunAsksFirstAndARefusedCheckpointLeavesTheDashboardAsItWas(FxRobot robot, @TempDir Path dir)
            throws Exception {
        Path config = dir.resolve("other.json");
        Files.writeString(config, """
                {"name": "other-run", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}}, "stages": [{"epochs": 2, "batchSize": 20}]}
                """);
        RunResult other = WindowFixture.train(config);
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        List<String> logBefore = onFx(() -> List.copyOf(window.dashboard().log().getItems()));

        // the user says no: nothing is started and nothing is written
        fixture.dialogs.confirm = false;
        fixture.dialogs.toResume = other.runDir();
        robot.clickOn("#resume");
        assertThat(List.copyOf(fixture.dialogs.asked))
                .anySatisfy(a -> assertThat(a)
                        .startsWith("confirm:Resume other-run?")
                        .contains(other.runDir().toString()));
        assertThat(onFx(() -> window.controller().stateProperty().get())).isEqualTo(RunController.State.IDLE);
        assertThat(Files.readString(other.runDir().resolve("train.log"))).doesNotContain("resuming from");

        // a damaged checkpoint: refused, and the dashboard keeps what it showed
        fixture.dialogs.confirm = true;
        Path last = other.lastCheckpoint();
        byte[] bytes = Files.readAllBytes(last);
        Files.write(last, Arrays.copyOf(bytes, bytes.length / 2));
        fixture.dialogs.toResume = last;
        robot.clickOn("#resume");
        waitUntil("the refusal", () -> !fixture.dialogs.errors.isEmpty());
        assertThat(List.copyOf(fixture.dialogs.errors))
                .singleElement()
                .satisfies(e -> assertThat(e).contains("Could not resume"));
        // what the log showed is still there, and the refusal is added to it
        List<String> logAfter = onFx(() -> List.copyOf(window.dashboard().log().getItems()));
        // (AssertJ's startsWith with nothing to look for fails on a non-empty list: compare the prefix itself)
        assertThat(logAfter).hasSizeGreaterThan(logBefore.size());
        assertThat(logAfter.subList(0, logBefore.size())).isEqualTo(logBefore);
        assertThat(logAfter.get(logAfter.size() - 1)).contains("Could not resume");
        assertThat(onFx(() -> window.controller().stateProperty().get())).isEqualTo(RunController.State.IDLE);
    }

    /** NCCL settings are read when ND4J loads: after a run, a changed toggle takes effect only after a restart. */
    @Test
    void afterARunAChangedNcclToggleSaysItNeedsARestart(FxRobot robot, @TempDir Path dir) throws Exception {
        Path config = dir.resolve("small.json");
        Files.writeString(config, """
                {"name": "small", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}}, "stages": [{"epochs": 1, "batchSize": 20}]}
                """);
        fixture.dialogs.toOpen = config;
        robot.clickOn("#open");
        waitUntil(
                "the config to load and validate",
                () -> !robot.lookup("#start").query().isDisabled());
        robot.clickOn("#start");
        waitUntil(
                "the run to end",
                () -> window.controller().lastResultProperty().get() != null
                        && window.controller().stateProperty().get() == RunController.State.IDLE);

        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        robot.interact(() -> tabs.getSelectionModel().select(3));
        CheckBox p2p = robot.lookup("#nccl-NCCL_P2P_DISABLE").queryAs(CheckBox.class);
        robot.interact(() -> scrollIntoView(p2p));
        robot.clickOn(p2p);

        assertThat(onFx(() -> robot.lookup("#nccl-badge-NCCL_P2P_DISABLE")
                        .queryAs(Label.class)
                        .getText()))
                .isEqualTo("needs restart");
    }

    @Test
    void longTextsOnTheDevicesAndNcclTabsWrapInsteadOfRunningOffTheWindowAtItsFirstSize(FxRobot robot) {
        robot.interact(() -> {
            Stage stage = (Stage) window.scene().getWindow();
            stage.setWidth(1360);
            stage.setHeight(860);
        });
        TabPane tabs = robot.lookup("#config-tabs").queryAs(TabPane.class);
        for (int tab : new int[] {2, 3}) {
            String pane = tab == 2 ? "#devices-scroll" : "#nccl-scroll";
            robot.interact(() -> tabs.getSelectionModel().select(tab));
            waitUntil(
                    "the tab's content",
                    () -> robot.lookup(pane).tryQuery().isPresent()
                            && robot.lookup(pane)
                                            .queryAs(ScrollPane.class)
                                            .getContent()
                                            .getLayoutBounds()
                                            .getWidth()
                                    > 0
                            && (tab == 3
                                    || robot.lookup("#device-status")
                                                    .queryAs(Label.class)
                                                    .getText()
                                                    .length()
                                            > 20));
            double[] widths = onFx(() -> {
                ScrollPane sp = robot.lookup(pane).queryAs(ScrollPane.class);
                return new double[] {
                    sp.getContent().getLayoutBounds().getWidth(),
                    sp.getViewportBounds().getWidth()
                };
            });
            assertThat(widths[0]).as("content width on tab %d", tab).isLessThanOrEqualTo(widths[1] + 1);
        }
    }
}
