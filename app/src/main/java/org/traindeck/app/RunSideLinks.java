package org.traindeck.app;

import java.nio.file.Path;
import org.traindeck.app.run.Dashboard;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.config.ValidationResult;

/**
 * How the window's run side follows its config side: another config clears the last run's view, a valid config
 * becomes the queue's and names the runs' folder, and a finished run refreshes the lists of runs.
 */
final class RunSideLinks {

    private RunSideLinks() {}

    static void clearTheRunWhenTheConfigIsReplaced(TabContext c, Dashboard dashboard) {
        // another config: the last run's curves, summary and banner belong to it, not to this one (a run in progress
        // stays)
        c.files().onReplaced(() -> {
            if (c.controller().stateProperty().get() == RunController.State.IDLE) {
                dashboard.clearRun();
            }
            // the runs overlaid were chosen from the last config's runs: they belong to that comparison
            dashboard.overlays().clear();
        });
        c.controller().onError(m -> {
            dashboard.messages().add(m);
            c.services().dialogs().showError("TrainDeck", m);
        });
    }

    /** The run side follows the config (its start hint, the queue's config, the output folder) and the runs. */
    static void followTheConfigAndTheRuns(TabContext c, Dashboard dashboard) {
        c.document().validationProperty().addListener((o, a, b) -> {
            dashboard.setStartHint(startHint(b));
            c.queue().configProperty().set(b != null && b.isValid() ? b.config() : null);
            if (b != null && b.isValid()) {
                Path output = b.config().outputPath().toAbsolutePath().normalize();
                c.runs().folderProperty().set(output);
                c.queue().folderProperty().set(output);
                c.sweeps().folderProperty().set(output);
            }
        });
        dashboard
                .charts()
                .forEach(chart -> chart.setExportTarget(
                        name -> c.services()
                                .dialogs()
                                .chooseExportFile(c.files().lastFolder(), name),
                        c.services().tasks(),
                        m -> c.services().dialogs().showError("Export failed", m)));
        c.controller().currentProperty().addListener((o, a, run) -> {
            if (run != null) {
                // a run loads ND4J before its first step, and ND4J reads the environment once: from now on a changed
                // toggle needs a restart
                c.nccl().setReport(run.ncclReport(), true);
            }
        });
        c.controller().lastResultProperty().addListener((o, a, r) -> {
            c.runs().refresh();
            c.sweeps().refresh();
        });
        dashboard.summary().setFolderOpener(c.services().dialogs()::showFolder);
        dashboard.summary().setEvaluator(c.evaluations()::evaluate);
    }

    /** What the empty loss chart says: what Start would do, or what stands in its way. */
    static String startHint(ValidationResult v) {
        if (v == null) {
            return null;
        }
        if (!v.isValid()) {
            return "Fix the config to train: " + v.errors().size() + " problem(s), marked on the Config tab.";
        }
        return "Press Start (Ctrl+Enter) to train " + v.config().name() + " on "
                + v.config().devices().describe() + ".";
    }
}
