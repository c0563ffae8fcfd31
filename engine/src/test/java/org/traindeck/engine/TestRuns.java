package org.traindeck.engine;

import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.EventListener;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.train.RunResult;
import org.traindeck.engine.train.TrainingRun;

/** Runs a prepared run in the background and presses Stop once it reports {@code step}'s loss, as a user would. */
public final class TestRuns {

    private TestRuns() {
    }

    /**
     * Events reach listeners asynchronously, so on a busy machine the run may finish a step or two more before it
     * sees the request: callers check the steps it really did.
     */
    public static RunResult stopAfterStep(TrainingRun run, long step, EventListener alsoListening) throws InterruptedException {
        run.subscribe(e -> {
            alsoListening.onEvent(e);
            if (e instanceof MetricEvent m && m.name().equals("train/loss") && m.step() == step) {
                run.requestStop();
            }
        }, EventBus.Delivery.LOSSLESS);
        run.start();
        return run.await();
    }

    public static RunResult stopAfterStep(TrainingRun run, long step) throws InterruptedException {
        return stopAfterStep(run, step, e -> { });
    }
}
