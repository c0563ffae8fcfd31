package org.traindeck.app.run;

import javafx.application.Platform;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.sinks.MetricsJsonlReader;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.RunResult;
import org.traindeck.engine.train.TrainingRun;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * Start, Resume and Stop. Everything that can take time (finding devices, preparing the run folder, loading a
 * checkpoint, reading a past run) happens on a worker thread; the run trains on its own thread; the dashboard gets
 * the run's events through a listener that never holds training up. The FX thread only ever sees results.
 */
public final class RunController {

    public enum State { IDLE, STARTING, RUNNING, STOPPING }

    private final Dashboard dashboard;
    private final DeviceDiscovery discovery;
    private final ObjectProperty<State> state = new SimpleObjectProperty<>(State.IDLE);
    private final ObjectProperty<TrainingRun> current = new SimpleObjectProperty<>();
    private final ObjectProperty<RunResult> lastResult = new SimpleObjectProperty<>();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "traindeck-ui-worker");
        t.setDaemon(true);
        return t;
    });
    private Consumer<String> onError = m -> { };

    public RunController(Dashboard dashboard, DeviceDiscovery discovery) {
        this.dashboard = dashboard;
        this.discovery = discovery;
    }

    public ReadOnlyObjectProperty<State> stateProperty() {
        return state;
    }

    public ReadOnlyObjectProperty<TrainingRun> currentProperty() {
        return current;
    }

    public ReadOnlyObjectProperty<RunResult> lastResultProperty() {
        return lastResult;
    }

    /** Errors a user must act on (an invalid config, a bad checkpoint), shown by the window. */
    public void onError(Consumer<String> handler) {
        this.onError = handler;
    }

    /** Starts a run of a validated config. */
    public void start(RunConfig config) {
        if (state.get() != State.IDLE) {
            return;
        }
        state.set(State.STARTING);
        dashboard.clearRun();
        dashboard.status().plan(config.stages().stream().mapToInt(StageConfig::epochs).toArray());
        dashboard.status().run(config.name());
        worker.execute(() -> {
            try {
                TrainingRun run = TrainingRun.prepare(config, discovery);
                launch(run);
            } catch (Exception e) {
                failedToStart("The run could not start: " + message(e));
            }
        });
    }

    /** Resumes from a checkpoint file or a run folder (its latest valid checkpoint). */
    public void resume(Path target) {
        if (state.get() != State.IDLE) {
            return;
        }
        state.set(State.STARTING);
        worker.execute(() -> {
            try {
                TrainingRun run = TrainingRun.resume(target, TrainingRun.ResumeOptions.NONE, discovery);
                List<EngineEvent> history = MetricsJsonlReader.read(run.runDir());
                // only now that the resume is certain does the dashboard let go of what it showed
                Platform.runLater(() -> {
                    dashboard.clearRun();
                    history.forEach(dashboard::offer);
                    dashboard.status().plan(run.config().stages().stream().mapToInt(StageConfig::epochs).toArray());
                    dashboard.status().run(run.config().name());
                    launch(run);
                });
            } catch (Exception e) {
                failedToStart("Could not resume from " + target + ": " + message(e));
            }
        });
    }

    /** Shows a finished (or crashed) run from its folder, with its own stages and name (not the open config's). */
    public void openPastRun(Path runDir, Consumer<Integer> done) {
        if (state.get() != State.IDLE) {
            return;
        }
        worker.execute(() -> {
            try {
                List<EngineEvent> history = MetricsJsonlReader.read(runDir);
                ValidationResult own = ConfigParser.load(runDir.resolve("config.json"));
                Platform.runLater(() -> {
                    dashboard.clearRun();
                    if (own.config() != null) {
                        dashboard.status().plan(own.config().stages().stream().mapToInt(StageConfig::epochs).toArray());
                        dashboard.status().run(own.config().name() + " (" + runDir.getFileName() + ")");
                    } else {
                        dashboard.status().run(String.valueOf(runDir.getFileName()));
                    }
                    history.forEach(dashboard::offer);
                    done.accept(history.size());
                });
            } catch (Exception e) {
                Platform.runLater(() -> onError.accept("Could not open " + runDir + ": " + message(e)));
            }
        });
    }

    private void launch(TrainingRun run) {
        run.subscribe(dashboard::offer, EventBus.Delivery.DROP_WHEN_BEHIND);
        run.completion().thenAccept(result -> Platform.runLater(() -> {
            lastResult.set(result);
            current.set(null);
            state.set(State.IDLE);
        }));
        Platform.runLater(() -> {
            current.set(run);
            state.set(State.RUNNING);
        });
        run.start();
    }

    private void failedToStart(String message) {
        Platform.runLater(() -> {
            state.set(State.IDLE);
            onError.accept(message);
        });
    }

    /** Asks the run to stop after its current step (it saves a checkpoint to resume from). */
    public void stop() {
        TrainingRun run = current.get();
        if (run != null && state.get() == State.RUNNING) {
            state.set(State.STOPPING);
            run.requestStop();
        }
    }

    /** Whether ND4J is already loaded in this process (NCCL toggles then need a restart). */
    public static boolean backendLoaded() {
        return Nd4jRuntime.isLoaded();
    }

    private static String message(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    public void shutdown() {
        TrainingRun run = current.get();
        if (run != null) {
            run.requestStop();
        }
        worker.shutdownNow();
    }
}
