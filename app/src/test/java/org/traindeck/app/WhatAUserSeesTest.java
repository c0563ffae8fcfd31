package org.traindeck.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.app.WindowFixture.onFx;
import static org.traindeck.app.WindowFixture.waitUntil;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import javafx.scene.Parent;
import javafx.scene.control.Alert;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.scene.control.ToggleButton;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;
import org.traindeck.app.audit.AuditReport;
import org.traindeck.app.audit.LayoutAudit;
import org.traindeck.app.run.EndOfRunSummary;
import org.traindeck.app.ui.FxDialogs;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;

/**
 * The audit that sees what a user sees ({@link LayoutAudit}): at the usual laptop sizes and maximized, on every tab
 * of both sides, with and without the end-of-run summary, in both themes, and in every dialog, no control is cut off,
 * no text reads "…", nothing covers a sibling, and every text and series has at least 3:1 contrast. The config's
 * output folder holds two finished runs, two of them selected, so that the Runs table and the config diff have rows.
 */
class WhatAUserSeesTest extends WindowTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"1280x800", "1360x860", "maximized"})
    void everyTabInBothThemesWithAndWithoutTheSummary(String size, FxRobot robot) throws Exception {
        Path config = twoFinishedRuns();
        openConfig(robot, config);
        resize(size, robot);
        chartsWithSeries(robot);
        AuditReport report = new AuditReport();
        // the light theme without and with the summary, the dark one with it (the only texts it adds to the light)
        for (boolean dark : new boolean[] {false, true}) {
            robot.interact(
                    () -> robot.lookup("#theme").queryAs(ToggleButton.class).setSelected(dark));
            for (boolean summary : dark ? new boolean[] {true} : new boolean[] {false, true}) {
                robot.interact(() -> {
                    if (summary) {
                        window.dashboard().summary().show(summary(config.getParent()));
                    } else {
                        window.dashboard().summary().hide();
                    }
                });
                report.add(everyTabPair(robot, size + (dark ? " dark" : " light") + (summary ? " summary" : "")));
            }
        }
        System.out.println("what a user sees at " + size + ": " + report.summary());
        report.lines().forEach(System.out::println);
        assertThat(report.checkedCount(AuditReport.Kind.ELLIPSIZED)).isGreaterThan(100);
        assertThat(report.checkedCount(AuditReport.Kind.CONTRAST)).isGreaterThan(100);
        assertThat(report.lines()).as(report.summary()).isEmpty();
    }

    @Test
    void everyDialog(FxRobot robot) throws Exception {
        waitUntil(
                "the sample to load",
                () -> window.document().validationProperty().get() != null);
        Window owner = window.scene().getWindow();
        AuditReport report = new AuditReport();
        report.add(
                dialog(robot, "shortcuts", () -> FxDialogs.infoAlert(owner, "Keyboard shortcuts", MainMenu.SHORTCUTS)));
        report.add(dialog(
                robot,
                "where files go",
                () -> FxDialogs.infoAlert(
                        owner,
                        "Where files go",
                        new MainMenu.Where(fixture.preferences.file(), dir.resolve("data"), dir.resolve("docs"))
                                .describe())));
        report.add(dialog(
                robot,
                "error",
                () -> FxDialogs.errorAlert(
                        owner,
                        "TrainDeck",
                        "Could not resume: the checkpoint " + dir.resolve("runs/a/checkpoints/step-12.tdckpt")
                                + " is damaged (it ends before its parameters).")));
        report.add(dialog(
                robot,
                "confirm",
                () -> FxDialogs.confirmAlert(owner, "Remove from the queue", "Remove #3 digits-mlp from the queue?")));
        report.add(dialog(
                robot,
                "quit",
                () -> FxDialogs.quitAlert(
                        owner,
                        "The run in progress stops; a checkpoint is saved first, so it can be resumed.\n"
                                + "Your changes to digits-mlp.json are not saved.",
                        true)));
        report.add(dialog(robot, "unsaved", () -> FxDialogs.unsavedAlert(owner, "Open another config?")));
        System.out.println("what a user sees in dialogs: " + report.summary());
        report.lines().forEach(System.out::println);
        assertThat(report.checkedCount(AuditReport.Kind.ELLIPSIZED)).isGreaterThan(10);
        assertThat(report.lines()).as(report.summary()).isEmpty();
    }

    private AuditReport dialog(FxRobot robot, String name, Supplier<Alert> make) {
        Alert[] shown = new Alert[1];
        robot.interact(() -> {
            shown[0] = make.get();
            shown[0].show();
        });
        WaitForAsyncUtils.waitForFxEvents();
        try {
            // the smallest the window manager may make it: the dialog's own minimum size
            robot.interact(() -> {
                var pane = shown[0].getDialogPane();
                double chrome = shown[0].getHeight() - pane.getHeight();
                shown[0].setHeight(pane.minHeight(pane.getWidth()) + chrome);
            });
            WaitForAsyncUtils.waitForFxEvents();
            return onFx(() -> {
                Parent root = shown[0].getDialogPane().getScene().getRoot();
                root.applyCss();
                root.layout();
                return LayoutAudit.audit(root, "dialog " + name);
            });
        } finally {
            robot.interact(() -> shown[0].close());
        }
    }

    private AuditReport everyTabPair(FxRobot robot, String state) {
        AuditReport report = new AuditReport();
        TabPane config = robot.lookup("#config-tabs").queryAs(TabPane.class);
        TabPane side = robot.lookup("#charts-or-layers").queryAs(TabPane.class);
        for (var s : side.getTabs()) {
            robot.interact(() -> side.getSelectionModel().select(s));
            for (var c : config.getTabs()) {
                robot.interact(() -> config.getSelectionModel().select(c));
                if (c.getId().equals("tab-runs")) {
                    selectEveryRun(robot);
                }
                WaitForAsyncUtils.waitForFxEvents();
                String where = state + ": " + c.getText() + " + " + s.getText();
                report.add(onFx(() -> {
                    // as the window's 10 Hz timer would have by the time anyone looks: the charts drawn
                    window.dashboard().refreshCharts();
                    window.scene().getRoot().applyCss();
                    window.scene().getRoot().layout();
                    return LayoutAudit.audit(window.scene().getRoot(), where);
                }));
            }
        }
        return report;
    }

    @SuppressWarnings("unchecked")
    private void selectEveryRun(FxRobot robot) {
        waitUntil(
                "the runs table",
                () -> robot.lookup("#runs-table").tryQuery().isPresent()
                        && robot.lookup("#runs-table")
                                        .queryAs(TableView.class)
                                        .getItems()
                                        .size()
                                == 2);
        robot.interact(() -> robot.lookup("#runs-table")
                .queryAs(TableView.class)
                .getSelectionModel()
                .selectAll());
    }

    private void resize(String size, FxRobot robot) {
        robot.interact(() -> {
            Stage stage = (Stage) window.scene().getWindow();
            if (size.equals("maximized")) {
                stage.setMaximized(true);
            } else {
                String[] wh = size.split("x");
                stage.setWidth(Double.parseDouble(wh[0]));
                stage.setHeight(Double.parseDouble(wh[1]));
            }
        });
        WaitForAsyncUtils.waitForFxEvents();
    }

    /** Two finished runs of two configs that differ in their hidden layers, in one output folder. */
    private Path twoFinishedRuns() throws Exception {
        Path config = null;
        String[][] variants = {{"[16]", "relu", "200", "20", "0.2"}, {"[32, 16]", "tanh", "240", "24", "0.25"}};
        for (String[] v : variants) {
            config = dir.resolve("small.json");
            Files.writeString(config, """
                    {"name": "small", "outputDir": "runs", "model": {"type": "mlp", "hidden": %s, "activation": "%s"},
                     "data": {"train": {"type": "synthetic", "samples": %s, "features": 4}, "validationSplit": %s},
                     "stages": [{"name": "a-stage-with-a-long-name", "epochs": 1, "batchSize": %s}]}
                    """.formatted(v[0], v[1], v[2], v[4], v[3]));
            WindowFixture.train(config);
        }
        return config;
    }

    private void openConfig(FxRobot robot, Path config) {
        fixture.dialogs.toOpen = config;
        robot.clickOn("#open");
        waitUntil(
                "the config to load",
                () -> config.equals(window.document().fileProperty().get())
                        && window.document().validationProperty().get() != null);
    }

    /** Every chart with series: losses of a few stages, accuracy, learning rate, throughput. */
    private void chartsWithSeries(FxRobot robot) {
        for (long step = 1; step <= 20; step++) {
            for (int stage = 0; stage < 3; stage++) {
                window.dashboard().offer(metric(MetricNames.TRAIN_LOSS, stage, step, 1.0 / step));
                window.dashboard().offer(metric(MetricNames.VAL_LOSS, stage, step, 1.2 / step));
                window.dashboard().offer(metric(MetricNames.VAL_ACCURACY, stage, step, 0.04 * step));
            }
            window.dashboard().offer(metric(MetricNames.LR, 0, step, 0.01));
            window.dashboard().offer(metric(MetricNames.THROUGHPUT, 0, step, 100));
        }
        robot.interact(() -> {
            window.dashboard().drain(Integer.MAX_VALUE);
            window.dashboard().refreshCharts();
        });
    }

    private static MetricEvent metric(String name, int stage, long step, double value) {
        return new MetricEvent("r", "s" + stage, stage, 0, step, System.currentTimeMillis(), step, name, value, null);
    }

    private static EndOfRunSummary summary(Path folder) {
        return new EndOfRunSummary(
                RunResult.Status.FINISHED,
                "Run finished: small",
                "120 steps in 14 s (8.6 steps/s), on the CPU; best validation loss 0.3312 at step 96",
                List.of(
                        "Stage \"warmup\": train loss 0.4412, val loss best 0.3901, final 0.3988, val accuracy best"
                                + " 88.75 %, final 88.12 %",
                        "Stage \"main\": train loss 0.2871, val loss best 0.3312, final 0.3390, val accuracy best"
                                + " 91.25 %, final 90.62 %"),
                folder.resolve("runs/small-2"));
    }
}
