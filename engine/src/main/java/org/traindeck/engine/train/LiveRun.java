package org.traindeck.engine.train;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.EventListener;

/**
 * A run a queue or a front end follows, wherever it trains: on a thread of this JVM ({@link TrainingRun}) or in a
 * process of its own that the sweep supervises. Its events, its folder, stop, and how it ended.
 */
public interface LiveRun {

    RunConfig config();

    /** The run's folder (a trial retried from scratch after a crash gets a new one). */
    Path runDir();

    /** What became of the config's NCCL toggles. */
    NcclReport ncclReport();

    /** Adds a listener; call before {@link #start()} to see every event. */
    EventBus.Subscription subscribe(EventListener listener, EventBus.Delivery delivery);

    /** Trains in the background. */
    void start();

    /** Steps done so far. */
    long currentStep();

    /** Asks the run to stop after the current step; it saves a checkpoint to resume from. */
    void requestStop();

    /**
     * Ends the run at once, whatever its training thread is doing (a stop that outlasted its limit): it is recorded as
     * stopped, naming the newest complete checkpoint in its folder or saying there is none, never one being written.
     * Returns how it ended (the run's own result when it had ended already). A run in a process of its own is stopped
     * by that process under its own limit: for it this returns null while it has not ended.
     *
     * @param why what happened, said first in the message ("did not stop within 60 s of SIGTERM")
     */
    default RunResult giveUp(String why) {
        return completion().getNow(null);
    }

    /** Completes with how the run ended; never exceptionally for a training problem. */
    CompletableFuture<RunResult> completion();

    default RunResult await() throws InterruptedException {
        try {
            return completion().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }
}
