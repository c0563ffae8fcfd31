package org.traindeck.engine.train.callback;

import java.util.Map;
import java.util.function.Supplier;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.StepReport;
import org.traindeck.engine.train.state.TrainingState;

/**
 * A stage's weight average ({@link WeightEma}): started from the weights once the stage's model is ready (or from a
 * resumed checkpoint's average), updated after every applied step, and validated after the raw weights with the
 * average swapped in and the weights swapped back exactly (val_ema/...). Comes after the validation policy and
 * before the checkpoint policy, which saves the average and may judge by it.
 */
public final class EmaCallback implements TrainingCallback {

    private final WeightEma ema;
    private final RunEvents events;
    private final Supplier<ComputationGraph> net;
    private CheckpointFiles.Contents resumeFrom;
    private float[] toRestore;
    private boolean starting;

    /** @param resumeFrom the checkpoint a resumed run continues from (null for a new run) */
    public EmaCallback(
            WeightEma ema, RunEvents events, Supplier<ComputationGraph> net, CheckpointFiles.Contents resumeFrom) {
        this.ema = ema;
        this.events = events;
        this.net = net;
        this.resumeFrom = resumeFrom;
    }

    @Override
    public void onStageStart(TrainingState state, StagePlan plan) {
        ema.beginStage(plan.stage.ema());
        toRestore = null;
        starting = plan.stage.ema() != null;
        if (resumeFrom != null) {
            // only the stage the run resumes in continues the checkpoint's average; a later stage starts its own
            boolean itsStage = resumeFrom.checkpoint().stageIndex() == plan.index;
            toRestore = itsStage ? resumeFrom.ema() : null;
            if (itsStage && starting && toRestore == null) {
                events.logLine("the checkpoint holds no weight average: stage \"" + plan.stage.name()
                        + "\" starts its average from the resumed weights");
            }
            resumeFrom = null;
        }
    }

    @Override
    public void onEpochStart(TrainingState state, StagePlan plan) {
        // the first epoch start of a stage: its model is built, converted to the stage's precision and resumed
        if (!starting) {
            return;
        }
        starting = false;
        if (toRestore != null) {
            ema.restore(net.get(), toRestore);
            toRestore = null;
        } else {
            ema.copyWeights(net.get());
        }
    }

    @Override
    public void onStep(TrainingState state, StagePlan plan, StepReport step) {
        if (step.applied()) {
            ema.afterStep(net.get(), step.step() - plan.stageStart);
        }
    }

    @Override
    public void onEpochEnd(TrainingState state, StagePlan plan, EpochSummary summary) {
        if (!ema.active() || !ValidationCallback.isDue(state, plan)) {
            return;
        }
        ComputationGraph model = net.get();
        INDArray raw = ema.swapIn(model);
        Map<String, Double> metrics;
        try {
            metrics = Evaluator.evaluate(model, plan.data.validation(), plan.images, plan.dataType, state);
        } finally {
            ema.swapBack(model, raw);
        }
        metrics.forEach((name, value) -> {
            String emaName = MetricNames.ofEma(name);
            events.metric(emaName, value, null);
            summary.metrics().put(emaName, value);
        });
    }
}
