package org.traindeck.engine.api;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.events.TrainingListener;
import org.traindeck.engine.train.LiveRun;

/**
 * One run, as {@link Engine#openRun} or {@link Engine#resume} opened it: what it is, its events, start and stop, and
 * how it ended.
 */
public final class RunHandle {

    private final LiveRun run;

    RunHandle(LiveRun run) {
        this.run = run;
    }

    public RunConfig config() {
        return run.config();
    }

    public Path runDir() {
        return run.runDir();
    }

    /** What became of the config's NCCL settings. */
    public NcclReport ncclReport() {
        return run.ncclReport();
    }

    /** Optimizer steps done so far. */
    public long currentStep() {
        return run.currentStep();
    }

    /**
     * Adds a listener (a {@link TrainingListener}, or a lambda over the raw events); call before {@link #start()} to
     * see every event. It never holds training up: a listener that falls behind misses metric events, never a
     * lifecycle event (the run's files still get every one).
     */
    public void subscribe(EventListener listener) {
        run.subscribe(listener, EventBus.Delivery.DROP_WHEN_BEHIND);
    }

    /**
     * Adds a listener that hears every event, in order, even when it is slow: for a front end that prints the run,
     * such as the command line. Training does not wait for it; its queue is unbounded, so a listener slower than
     * training holds the events it has not heard in memory. Call before {@link #start()}.
     */
    public void subscribeLossless(EventListener listener) {
        run.subscribe(listener, EventBus.Delivery.LOSSLESS);
    }

    /** Trains on a thread of its own. */
    public void start() {
        run.start();
    }

    /** Asks the run to stop after the current step; it saves a checkpoint to resume from. */
    public void requestStop() {
        run.requestStop();
    }

    /**
     * Ends the run now, without waiting for its stop checkpoint (a stop that outlasted its limit): its status says
     * "stopped" and names the newest complete checkpoint, or that there is none. Returns how the run ended (null for a
     * sweep trial in a process of its own that has not ended: that process stops it under its own limit).
     */
    public RunResult giveUp(String why) {
        return run.giveUp(why);
    }

    /** Completes with how the run ended (it never completes exceptionally for a training problem). */
    public CompletableFuture<RunResult> completion() {
        return run.completion().copy();
    }
}
