package org.traindeck.engine.trials;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.events.RunEvent;
import org.traindeck.engine.sinks.MetricsJsonlReader;
import org.traindeck.engine.train.LiveRun;

/**
 * A sweep trial training in a process of its own, as the sweep sees it: its events (read from the process), stop,
 * and how it ended. A process that ends without a result (a native crash, SIGKILL) is recorded with its crash log and
 * started once more from the run's latest checkpoint (from scratch, in a new folder, when it had none); a second such
 * end fails the trial. The other trials never notice.
 */
public final class SupervisedTrial implements LiveRun {

    /** Processes a trial may use up: the first, and one retry after a crash. */
    static final int ATTEMPTS = 2;
    /** How the message of a trial whose process crashed begins. */
    public static final String CRASHED = "crashed: ";

    private final TrialProcesses processes;
    private final RunConfig config;
    private final EventBus bus = new EventBus();
    private final CompletableFuture<RunResult> result = new CompletableFuture<>();
    private final List<String> crashes = new ArrayList<>();
    private final Function<String, EngineEvent> events;
    private volatile TrialChild child;
    private volatile Path runDir;
    private volatile long step;
    private volatile boolean stopRequested;
    private Thread thread;

    SupervisedTrial(TrialProcesses processes, RunConfig config, Path runDir, TrialChild child) {
        this.processes = processes;
        this.config = config;
        this.runDir = runDir;
        this.child = child;
        this.events = MetricsJsonlReader.lines(config.name());
    }

    @Override
    public RunConfig config() {
        return config;
    }

    @Override
    public Path runDir() {
        return runDir;
    }

    @Override
    public NcclReport ncclReport() {
        // applied in the trial's own process, which reports none of it
        return new NcclReport(List.of());
    }

    @Override
    public EventBus.Subscription subscribe(EventListener listener, EventBus.Delivery delivery) {
        return bus.subscribe(listener, delivery);
    }

    @Override
    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("this trial has already been started");
        }
        thread = new Thread(this::supervise, "traindeck-trial-" + config.name());
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public long currentStep() {
        return step;
    }

    @Override
    public void requestStop() {
        stopRequested = true;
        child.stop();
        processes.killIfStillAliveLater(child);
    }

    @Override
    public CompletableFuture<RunResult> completion() {
        return result;
    }

    /** The process of the current attempt (a test kills it). */
    long pid() {
        return child.pid();
    }

    private void supervise() {
        try {
            while (true) {
                TrialChild.Ended ended = child.follow(this::publish);
                if (ended.result() != null) {
                    finish(noted(ended.result()));
                    return;
                }
                crashes.add(ended.describe());
                processes.crashed(this, ended);
                if (stopRequested) {
                    finish(outcome(RunResult.Status.STOPPED, "stopped; " + crashNotes()));
                    return;
                }
                if (crashes.size() >= ATTEMPTS) {
                    finish(outcome(
                            RunResult.Status.FAILED,
                            "crashed " + crashes.size() + " times, not retried again: " + crashNotes()));
                    return;
                }
                TrialProcesses.Restart restart = processes.restart(config, runDir);
                if (restart.child() == null) {
                    finish(outcome(
                            RunResult.Status.FAILED,
                            "could not continue after a crash (" + restart.message() + "): " + crashNotes()));
                    return;
                }
                child = restart.child();
                runDir = restart.runDir();
                // whoever follows the trial forgets the steps after the checkpoint: they are trained again
                step = child.step();
                bus.publish(new LifecycleEvent(
                        config.name(),
                        "",
                        0,
                        0,
                        step,
                        System.currentTimeMillis(),
                        0,
                        LifecycleEvent.Kind.REWIND,
                        "continued after a crash of its process, from step " + step));
                if (!restart.message().isEmpty()) {
                    crashes.add(restart.message());
                }
                if (stopRequested) {
                    child.stop();
                }
            }
        } catch (IOException | RuntimeException e) {
            child.kill();
            finish(outcome(
                    RunResult.Status.FAILED,
                    "the trial's process could not be followed: " + e
                            + (crashes.isEmpty() ? "" : "; " + crashNotes())));
        }
    }

    private void publish(String line) {
        EngineEvent e = events.apply(line);
        if (e == null) {
            return;
        }
        if (e instanceof RunEvent r) {
            step = r.step();
            child.step(r.step());
        }
        bus.publish(e);
    }

    private RunResult noted(RunResult r) {
        if (crashes.isEmpty()) {
            return r;
        }
        String note = crashNotes() + "; resumed";
        return new RunResult(
                r.status(),
                r.message().isEmpty() ? note : note + "; " + r.message(),
                r.runDir(),
                r.steps(),
                r.elapsedSeconds(),
                r.lastMetrics(),
                r.lastCheckpoint());
    }

    private String crashNotes() {
        return CRASHED + String.join("; then ", crashes);
    }

    private RunResult outcome(RunResult.Status status, String message) {
        return new RunResult(status, message, runDir, step, 0, Map.of(), null);
    }

    private void finish(RunResult r) {
        bus.close();
        processes.forget(this);
        result.complete(r);
    }

    /** Stops the trial's process with a checkpoint, killing it (and all it started) when it does not stop in time. */
    void stopOrKill(long waitSeconds) {
        TrialChild c = child;
        stopRequested = true;
        c.stop();
        try {
            result.get(waitSeconds, TimeUnit.SECONDS);
        } catch (Exception notInTime) {
            c.kill();
        }
    }
}
