package org.traindeck.app;

import java.io.IOException;
import java.nio.file.Path;
import org.traindeck.app.config.ConfigDocument;
import org.traindeck.app.run.Dashboard;
import org.traindeck.app.run.EndOfRunSummary;
import org.traindeck.app.run.RunController;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.ValidationResult;

/**
 * What the window's run buttons do: Start the config, Resume a run (asking first when it is not the one on screen),
 * open a past run, and say how a run ended, with its summary.
 */
final class RunActions {

    private final MainWindow.Services services;
    private final ConfigDocument document;
    private final RunController controller;
    private final Dashboard dashboard;
    private final ConfigFileActions files;
    /** The run on the dashboard (started, resumed or opened here), if any. */
    private Path shownRun;

    RunActions(
            MainWindow.Services services,
            ConfigDocument document,
            RunController controller,
            Dashboard dashboard,
            ConfigFileActions files) {
        this.services = services;
        this.document = document;
        this.controller = controller;
        this.dashboard = dashboard;
        this.files = files;
        controller.currentProperty().addListener((o, a, run) -> {
            if (run != null) {
                shownRun = run.runDir().toAbsolutePath().normalize();
            }
        });
        controller.lastResultProperty().addListener((o, a, r) -> showResult(r));
    }

    void start() {
        ValidationResult v = document.validationProperty().get();
        if (v == null || !v.isValid()) {
            return;
        }
        controller.start(v);
    }

    void resume() {
        // the run on screen (the one just stopped, say) is the likely one to continue: the chooser opens at its newest
        // valid checkpoint, the one a resume of its folder would use (not its best-of-stage copy)
        Path target = services.dialogs()
                .chooseResumeTarget(shownRun != null ? shownRun : files.lastFolder(), newestCheckpoint(shownRun));
        if (target == null) {
            return;
        }
        Path runDir = Engine.runFolderOf(target);
        // continuing a run writes into its folder: say which, unless it is the run on screen
        if (!runDir.equals(shownRun)
                && !services.dialogs()
                        .confirm(
                                "Resume " + runDir.getFileName() + "?",
                                "Resume the run in " + runDir
                                        + "?\nIt goes on training there from its checkpoint: its checkpoints and metric "
                                        + "files are continued (what was written after that checkpoint is kept aside). The config open here is "
                                        + "not used.")) {
            return;
        }
        services.preferences().lastFolder(runDir.getParent());
        controller.resume(target);
    }

    /** Null when there is no run on screen or it has no valid checkpoint (or its folder cannot be read). */
    private Path newestCheckpoint(Path runDir) {
        if (runDir == null) {
            return null;
        }
        try {
            return services.engine().pastRuns().latestCheckpoint(runDir).orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    void openRun() {
        Path dir = services.dialogs().chooseRunFolder(files.lastFolder());
        if (dir != null) {
            openRun(dir);
        }
    }

    /** Shows the run in {@code dir} on the dashboard (nothing while a run is in progress). */
    void openRun(Path dir) {
        shownRun = dir.toAbsolutePath().normalize();
        controller.openPastRun(dir, n -> dashboard.messages().add("opened " + dir + ": " + n + " events"));
    }

    private void showResult(RunResult r) {
        if (r == null) {
            return;
        }
        String name = String.valueOf(r.runDir().toAbsolutePath().normalize().getFileName());
        services.tasks()
                .execute(
                        () -> EndOfRunSummary.of(
                                name,
                                r,
                                services.engine().pastRuns().open(r.runDir()).history(),
                                services.engine().pastRuns().energy(r.runDir())),
                        summary -> dashboard.summary().show(summary),
                        e -> dashboard
                                .messages()
                                .add("could not read the run's metrics for its summary: " + e.getMessage()));
        String text = switch (r.status()) {
            case FINISHED -> "Run finished: " + r.steps() + " steps, files in " + r.runDir();
            case STOPPED ->
                "Run stopped at step " + r.steps()
                        + (r.lastCheckpoint() == null ? "" : "; resume from " + r.lastCheckpoint());
            case INCOMPLETE -> "Run finished, but files are incomplete: " + r.message();
            case FAILED -> "Run failed: " + r.message();
        };
        dashboard.messages().add(text);
    }
}
