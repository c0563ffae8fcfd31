package org.traindeck.engine.train.callback;

import java.util.function.Supplier;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.config.CheckpointPolicy;
import org.traindeck.engine.parallel.Watchdog;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * The checkpoint policy: at epoch ends (every N epochs and each stage's last), the best of each stage by the monitored
 * metric, every M minutes between steps, and when the user stops the run. The watchdog is paused while writing.
 */
public final class CheckpointCallback implements TrainingCallback {

    private final CheckpointWriter writer;
    private final CheckpointPolicy policy;
    private final Supplier<ComputationGraph> net;
    private final Watchdog watchdog;

    /** @param watchdog null when the run has none */
    public CheckpointCallback(
            CheckpointWriter writer, CheckpointPolicy policy, Supplier<ComputationGraph> net, Watchdog watchdog) {
        this.writer = writer;
        this.policy = policy;
        this.net = net;
        this.watchdog = watchdog;
    }

    @Override
    public void onStep(TrainingState state, StagePlan plan, StepReport step) {
        double minutes = policy.everyMinutes();
        if (minutes > 0
                && state.cursor < plan.batchesPerEpoch
                && System.nanoTime() - state.lastCheckpointNanos >= minutes * 60e9) {
            save(state, "time", midEpoch(state, plan));
        }
    }

    @Override
    public void afterEpoch(TrainingState state, StagePlan plan, EpochSummary summary) {
        boolean lastEpoch = state.epoch == plan.stage.epochs() - 1;
        CheckpointWriter.Position next =
                new CheckpointWriter.Position(plan.index, state.epoch + 1, 0, plan.stageStart, 0, 0, plan.workers);
        Double monitored = summary.metrics().get(policy.monitor());
        if (monitored != null && isBetter(monitored, state.best.get(plan.stage.name()))) {
            state.best.put(plan.stage.name(), monitored);
            if (policy.keepBestPerStage()) {
                save(state, "best", next);
            }
        }
        int every = policy.everyEpochs();
        if (lastEpoch || (every > 0 && (state.epoch + 1) % every == 0)) {
            save(state, lastEpoch ? "stage-end" : "epoch", next);
        }
    }

    @Override
    public void onStop(TrainingState state, StagePlan plan) {
        save(state, "stop", midEpoch(state, plan));
    }

    private static CheckpointWriter.Position midEpoch(TrainingState state, StagePlan plan) {
        return new CheckpointWriter.Position(
                plan.index,
                state.epoch,
                state.cursor,
                plan.stageStart,
                state.epochLossSum,
                state.epochExamples,
                plan.workers);
    }

    private void save(TrainingState state, String reason, CheckpointWriter.Position at) {
        if (watchdog != null) {
            watchdog.pause(true);
        }
        boolean goOn = writer.save(net.get(), state, reason, at);
        if (watchdog != null && "time".equals(reason)) {
            // between two steps: the watchdog goes on; at epoch ends and stops the loop turns it back on itself
            watchdog.pause(false);
        }
        if (!goOn && !"stop".equals(reason)) {
            throw new CheckpointStop();
        }
    }

    private boolean isBetter(double value, Double previous) {
        return previous == null || (policy.higherIsBetter() ? value > previous : value < previous);
    }
}
