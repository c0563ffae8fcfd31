package org.traindeck.engine.train.step;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.config.ParallelConfig;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.parallel.TierFailure;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * DL4J's ParallelWrapper (the opt-in "averaging" and "shared_gradients" modes): one step is one round in which every
 * device fits one batch with its own optimizer step, then parameters and optimizer state are averaged. Not the same
 * training as one device. A failure in the middle of a round leaves the replicas inconsistent: the model goes back
 * to its state at the start of this call and those steps are trained again by the next tier.
 */
public final class AveragingRounds implements StepStrategy {

    private final ComputationGraph net;
    private final ParallelConfig settings;
    private final long seed;
    private final RunEvents events;

    public AveragingRounds(ComputationGraph net, ParallelConfig settings, long seed, RunEvents events) {
        this.net = net;
        this.settings = settings;
        this.seed = seed;
        this.events = events;
    }

    @Override
    public void advance(TrainingState state, StagePlan plan, StepListener listener) {
        INDArray paramsBefore = net.params().dup();
        INDArray stateView = net.getUpdater().getStateViewArray();
        INDArray updaterBefore = stateView == null ? null : stateView.dup();
        long stepBefore = state.globalStep;
        int cursorBefore = state.cursor;
        double lossBefore = state.epochLossSum;
        long examplesBefore = state.epochExamples;
        net.getConfiguration().setIterationCount((int) stepBefore);
        try {
            ParallelEpoch.Outcome o =
                    ParallelEpoch.run(net, plan, state, settings, seed, (step, loss, examples, perWorker, nanos) -> {
                        int batches = 0;
                        for (long n : perWorker) {
                            batches += n > 0 ? 1 : 0;
                        }
                        synchronized (state) {
                            listener.onStep(new StepReport(
                                    step,
                                    batches,
                                    loss,
                                    Double.NaN,
                                    (int) examples,
                                    perWorker.clone(),
                                    true,
                                    plan.lrAfter(step - 1),
                                    0,
                                    Double.NaN));
                        }
                    });
            synchronized (state) {
                state.globalStep = stepBefore + o.rounds();
                state.cursor = cursorBefore + o.batchesConsumed();
                // DL4J's sum over a per-position head's positions, per position as every other tier reports it
                state.epochLossSum = lossBefore + o.lossSum() / LossPositions.of(plan.data.train());
                state.epochExamples = examplesBefore + o.examples();
            }
        } catch (TierFailure f) {
            synchronized (state) {
                if (!f.consistent()) {
                    net.params().assign(paramsBefore);
                    if (updaterBefore != null) {
                        net.getUpdater().getStateViewArray().assign(updaterBefore);
                    }
                    state.globalStep = stepBefore;
                    state.cursor = cursorBefore;
                    state.epochLossSum = lossBefore;
                    state.epochExamples = examplesBefore;
                    events.lifecycle(
                            LifecycleEvent.Kind.REWIND,
                            "going back to step " + stepBefore
                                    + ", the last consistent state: the steps after it are trained again");
                } else {
                    state.cursor = cursorBefore + (int) (state.globalStep - stepBefore) * plan.workers;
                }
            }
            throw f;
        }
    }
}
