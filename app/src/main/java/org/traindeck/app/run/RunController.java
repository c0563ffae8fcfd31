package org.traindeck.app.run;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import javafx.application.Platform;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import org.traindeck.app.tasks.TaskExecutor;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.api.PastRun;
import org.traindeck.engine.api.PreparedSweep;
import org.traindeck.engine.api.QueueHandle;
import org.traindeck.engine.api.QueueListener;
import org.traindeck.engine.api.RunHandle;
import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.events.EngineEvent;

/**
 * Start, Resume and Stop. Everything that can take time (finding devices, preparing the run folder, loading a
 * checkpoint, reading a past run) goes to the task executor; the run trains on its own thread; the dashboard gets
 * the run's events through a listener that never holds training up. The FX thread only ever sees results.
 */
public final class RunController {

    public enum State {
        IDLE,
        STARTING,
        RUNNING,
        STOPPING
    }

    private final Dashboard dashboard;
    private final Engine engine;
    private final TaskExecutor tasks;
    private final ObjectProperty<State> state = new SimpleObjectProperty<>(State.IDLE);
    private final ObjectProperty<RunHandle> current = new SimpleObjectProperty<>();
    private final ObjectProperty<RunResult> lastResult = new SimpleObjectProperty<>();
    private Consumer<String> onError = m -> {};
    private Runnable queueChanged = () -> {};
    /**
     * The run whose events the dashboard takes. A run's events reach its listener on a thread of their own, so the
     * last ones of a queued run can arrive after the next run has taken the dashboard: those are dropped.
     */
    private volatile RunHandle shown;

    private QueueHandle queue;

    public RunController(Dashboard dashboard, Engine engine, TaskExecutor tasks) {
        this.dashboard = dashboard;
        this.engine = engine;
        this.tasks = tasks;
    }

    public ReadOnlyObjectProperty<State> stateProperty() {
        return state;
    }

    public ReadOnlyObjectProperty<RunHandle> currentProperty() {
        return current;
    }

    public ReadOnlyObjectProperty<RunResult> lastResultProperty() {
        return lastResult;
    }

    /** Errors a user must act on (an invalid config, a bad checkpoint), shown by the window. */
    public void onError(Consumer<String> handler) {
        this.onError = handler;
    }

    /** Starts a run of a config validated from its text: a refusal then names the line of what it is about. */
    public void start(ValidationResult parsed) {
        RunConfig config = parsed.config();
        if (state.get() != State.IDLE) {
            return;
        }
        state.set(State.STARTING);
        dashboard.clearRun();
        shown = null; // late events of the run shown before are not this one's
        dashboard
                .status()
                .plan(config.stages().stream().mapToInt(StageConfig::epochs).toArray());
        dashboard.status().run(config.name());
        tasks.execute(
                () -> engine.openRun(parsed),
                this::launch,
                e -> failedToStart("The run could not start: " + message(e)));
    }

    /** Resumes from a checkpoint file or a run folder (its latest valid checkpoint). */
    public void resume(Path target) {
        if (state.get() != State.IDLE) {
            return;
        }
        state.set(State.STARTING);
        tasks.execute(
                () -> {
                    RunHandle run = engine.resume(target);
                    return new Resumed(run, engine.pastRuns().open(run.runDir()));
                },
                resumed -> {
                    // only now that the resume is certain does the dashboard let go of what it showed
                    show(resumed.past());
                    launch(resumed.run());
                },
                e -> failedToStart("Could not resume from " + target + ": " + message(e)));
    }

    private record Resumed(RunHandle run, PastRun past) {}

    /** Shows a finished (or crashed) run from its folder, with its own stages and name (not the open config's). */
    public void openPastRun(Path runDir, Consumer<Integer> done) {
        if (state.get() != State.IDLE) {
            return;
        }
        tasks.execute(
                () -> engine.pastRuns().open(runDir),
                past -> {
                    show(past);
                    done.accept(past.history().size());
                },
                e -> onError.accept("Could not open " + runDir + ": " + message(e)));
    }

    private void show(PastRun past) {
        shown = null; // late events of the run shown before are not this one's
        clearFor(past.config(), past.runDir());
        past.history().forEach(dashboard::offer);
        past.histograms().forEach(dashboard::offer);
        past.samples().forEach(dashboard::offer);
    }

    private void launch(RunHandle run) {
        shown = run;
        // a second run of a config goes to a folder of its own (shapes-unet-2): the run is that folder
        dashboard.status().run(folderName(run.runDir()));
        run.subscribe(e -> offerIfShown(run, e));
        run.completion()
                .thenAccept(result -> Platform.runLater(() -> {
                    lastResult.set(result);
                    current.set(null);
                    state.set(State.IDLE);
                }));
        current.set(run);
        state.set(State.RUNNING);
        run.start();
    }

    /** Empties the dashboard for a run: its stages' epochs (when its config is known) and its folder's name. */
    private void clearFor(RunConfig config, Path runDir) {
        dashboard.clearRun();
        if (config != null) {
            dashboard
                    .status()
                    .plan(config.stages().stream().mapToInt(StageConfig::epochs).toArray());
        }
        dashboard.status().run(folderName(runDir));
    }

    private static String folderName(Path runDir) {
        return String.valueOf(runDir.toAbsolutePath().normalize().getFileName());
    }

    private void failedToStart(String message) {
        state.set(State.IDLE);
        onError.accept(message);
    }

    /** Who hears that a queued run started or ended (the queue's list refreshes). */
    public void onQueueChanged(Runnable handler) {
        this.queueChanged = handler;
    }

    /**
     * Runs the queue of an output folder, each run shown on the dashboard as it starts (a resumed one with its
     * curves so far) and summarised when it ends; Stop stops the run in progress and the queue with it.
     */
    public void runQueue(Path outputDir) {
        follow(listener -> engine.queue().run(outputDir, listener));
    }

    /**
     * Runs a sweep as {@code traindeck sweep} does, each trial shown on the dashboard as it starts (with several at
     * once, the one started last); Stop stops it, and running it again continues it.
     */
    public void runSweep(PreparedSweep sweep) {
        follow(listener -> engine.sweeps().run(sweep, listener));
    }

    /** Runs a queue (through {@code start}), following its runs on the dashboard until it ends. */
    private void follow(Function<QueueListener, QueueHandle> start) {
        if (state.get() != State.IDLE) {
            return;
        }
        state.set(State.STARTING);
        QueueListener listener = new QueueListener() {
            @Override
            public void starting(QueueEntry entry, RunHandle run, boolean resumed) {
                showQueued(run, resumed);
            }

            @Override
            public void ended(QueueEntry entry, RunResult result) {
                Platform.runLater(() -> queuedEnded(entry, result));
            }
        };
        queue = start.apply(listener);
        queue.completion()
                .whenComplete((outcome, error) -> Platform.runLater(() -> {
                    queue = null;
                    current.set(null);
                    state.set(State.IDLE);
                    queueChanged.run();
                    if (error != null) {
                        onError.accept("The queue could not run: "
                                + message(error.getCause() != null ? error.getCause() : error));
                    }
                }));
    }

    /** A queued run starting (on the queue's thread): the dashboard shows it, a resumed one with its curves so far. */
    private void showQueued(RunHandle run, boolean resumed) {
        List<EngineEvent> history = List.of();
        if (resumed) {
            try {
                history = engine.pastRuns().open(run.runDir()).history();
            } catch (IOException e) {
                // its curves so far are missing from the dashboard, not from its files
            }
        }
        List<EngineEvent> before = history;
        // the dashboard lets go of the last run before this one's first event can arrive
        FxThread.runAndWait(() -> {
            clearFor(run.config(), run.runDir());
            before.forEach(dashboard::offer);
            current.set(run);
            shown = run;
            if (state.get() == State.STARTING) {
                state.set(State.RUNNING);
            }
            queueChanged.run();
        });
        run.subscribe(e -> offerIfShown(run, e));
    }

    private void queuedEnded(QueueEntry entry, RunResult result) {
        if (result != null) {
            lastResult.set(result);
        } else {
            onError.accept("Queued run " + entry.label() + ": " + entry.message());
        }
        queueChanged.run();
    }

    private void offerIfShown(RunHandle run, EngineEvent e) {
        if (shown == run) {
            dashboard.offer(e);
        }
    }

    /** Asks the run to stop after its current step (it saves a checkpoint to resume from); a queue stops with it. */
    public void stop() {
        RunHandle run = current.get();
        if (queue != null && (state.get() == State.RUNNING || state.get() == State.STARTING)) {
            state.set(State.STOPPING);
            queue.requestStop();
        } else if (run != null && state.get() == State.RUNNING) {
            state.set(State.STOPPING);
            run.requestStop();
        }
    }

    private static String message(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    /** Asks a running run to stop (it saves its checkpoint on its own thread). */
    public void shutdown() {
        if (queue != null) {
            queue.requestStop();
        }
        RunHandle run = current.get();
        if (run != null) {
            run.requestStop();
        }
    }
}
