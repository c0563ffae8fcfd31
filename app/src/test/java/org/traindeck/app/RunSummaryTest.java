package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.traindeck.app.run.EndOfRunSummary;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.runs.RunResult;

/** Before a run the charts say what Start will do; after it, a summary says what the run came to and where it is. */
class RunSummaryTest extends WindowTest {

    @Test
    void theEmptyLossChartSaysWhatStartWillDo(FxRobot robot) {
        waitUntil(
                "the sample to validate",
                () -> window.document().validationProperty().get() != null
                        && !window.document().validatingProperty().get());
        assertThat(onFx(() -> window.dashboard().lossChart().shownEmptyHint()))
                .isEqualTo("Press Start (Ctrl+Enter) to train digits-mlp on the CPU.");

        robot.interact(() -> window.document().textProperty().set("{\"name\": \"broken\"}"));
        waitUntil(
                "the edit to validate",
                () -> !window.document().validationProperty().get().isValid());
        assertThat(onFx(() -> window.dashboard().lossChart().shownEmptyHint())).startsWith("Fix the config to train: ");
    }

    @Test
    void aFinishedRunShowsItsSummaryWithItsFolder(FxRobot robot, @TempDir Path dir) throws Exception {
        Path config = dir.resolve("short.json");
        Files.writeString(config, """
                {"name": "short", "outputDir": "runs", "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "synthetic", "samples": 300, "features": 4}, "validationSplit": 0.2},
                 "stages": [{"name": "only", "epochs": 2, "batchSize": 20}]}
                """);
        fixture.dialogs.toOpen = config;
        robot.clickOn("#open");
        waitUntil(
                "the config to load and validate",
                () -> !robot.lookup("#start").query().isDisabled());
        robot.clickOn("#start");
        waitUntil("the run's summary", () -> window.dashboard().summary().shown() != null);

        EndOfRunSummary summary = onFx(() -> window.dashboard().summary().shown());
        assertThat(summary.status()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(summary.title()).isEqualTo("Run finished: short");
        assertThat(summary.detail()).startsWith("24 steps in ");
        // the energy as the run's folder records it: by stage, or n/a and why ("no RAPL counters ...")
        assertThat(summary.detail())
                .endsWith(" · "
                        + Engine.local().pastRuns().energy(summary.runDir()).summary())
                .contains(" · energy: ");
        assertThat(summary.stages())
                .singleElement()
                .satisfies(s -> assertThat(s)
                        .startsWith("Stage \"only\": train loss ")
                        .contains("val loss best ")
                        .contains("val accuracy best "));
        assertThat(onFx(() -> robot.lookup("#run-summary").query().isVisible())).isTrue();

        robot.clickOn("#run-summary-open-folder");
        assertThat(List.copyOf(fixture.dialogs.foldersShown)).containsExactly(summary.runDir());
        assertThat(summary.runDir().getParent()).isEqualTo(dir.resolve("runs"));

        robot.clickOn("#run-summary-close");
        assertThat(onFx(() -> robot.lookup("#run-summary").query().isVisible())).isFalse();
    }
}
