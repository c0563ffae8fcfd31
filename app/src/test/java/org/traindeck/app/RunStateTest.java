package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.control.Label;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.traindeck.app.charts.LiveChart;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.runs.RunResult;

/** One run on the dashboard at a time, named by its folder: opening another config leaves nothing of the last run. */
class RunStateTest extends WindowTest {

    private static final String CONFIG = """
            {"name": "%s", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
             "data": {"train": {"type": "synthetic", "samples": 200, "features": 4}, "validationSplit": 0.2},
             "stages": [{"epochs": 2, "batchSize": 20}]}
            """;

    private RunResult trainInWindow(FxRobot robot) {
        RunResult before = onFx(() -> window.controller().lastResultProperty().get());
        waitUntil(
                "the config to validate", () -> !robot.lookup("#start").query().isDisabled());
        robot.clickOn("#start");
        waitUntil(
                "the run to end",
                () -> window.controller().lastResultProperty().get() != before
                        && window.controller().stateProperty().get() == RunController.State.IDLE);
        return onFx(() -> window.controller().lastResultProperty().get());
    }

    @Test
    void openingAnotherConfigLeavesNothingOfTheLastRunAndRunsAreNamedByTheirFolders(FxRobot robot, @TempDir Path dir)
            throws Exception {
        Path a = Files.writeString(dir.resolve("alpha.json"), CONFIG.formatted("alpha"));
        Path b = Files.writeString(dir.resolve("beta.json"), CONFIG.formatted("beta"));
        fixture.dialogs.toOpen = a;
        robot.clickOn("#open");
        waitUntil(
                "alpha to load",
                () -> window.document().fileProperty().get() != null
                        && window.document().fileProperty().get().endsWith("alpha.json"));
        trainInWindow(robot);
        // a second run of the same config gets a folder of its own: it is named by that folder, not by the config
        RunResult second = trainInWindow(robot);
        String folder = second.runDir().getFileName().toString();
        assertThat(folder).isNotEqualTo("alpha");
        waitUntil("the summary", () -> window.dashboard().summary().shown() != null);
        assertThat(onFx(() -> window.dashboard().summary().shown().title())).isEqualTo("Run finished: " + folder);
        assertThat(onFx(() -> window.dashboard().status().runName())).isEqualTo(folder);
        // the charts take the run's events on their next refresh, which may come after the summary
        waitUntil(
                "alpha's points on the loss chart",
                () -> onFx(() -> {
                    window.dashboard().drain(Integer.MAX_VALUE);
                    window.dashboard().refreshCharts();
                    return window.dashboard().lossChart().totalPoints() > 0;
                }));

        fixture.dialogs.toOpen = b;
        robot.clickOn("#open");
        waitUntil("beta to load", () -> window.document().fileProperty().get().endsWith("beta.json"));
        robot.interact(() -> {
            window.dashboard().drain(Integer.MAX_VALUE);
            window.dashboard().refreshCharts();
        });

        assertThat(onFx(() -> window.dashboard().charts().stream()
                        .filter(c -> c != window.dashboard().memoryChart())
                        .mapToLong(LiveChart::totalPoints)
                        .sum()))
                .as("points of alpha's run on the charts")
                .isZero();
        assertThat(onFx(() -> window.dashboard().summary().isVisible()))
                .as("alpha's summary")
                .isFalse();
        assertThat(onFx(() -> window.dashboard().banner().isVisible()))
                .as("a banner about alpha")
                .isFalse();
        assertThat(onFx(() -> window.dashboard().status().runName())).isEmpty();
        assertThat(onFx(() -> window.dashboard().layers().model().rows()))
                .as("alpha's layers")
                .isEmpty();
        assertThat(onFx(() -> window.dashboard().log().getItems()))
                .noneSatisfy(l -> assertThat(l).contains("alpha"));
        assertThat(onFx(() ->
                        robot.lookup("#layers-readout").queryAs(Label.class).getText()))
                .doesNotContain("dense");
        assertThat(onFx(() -> window.dashboard().lossChart().shownEmptyHint())).contains("beta");
    }
}
