package org.traindeck.engine.train;

import java.util.Locale;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.schedule.FixedSchedule;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.resume.ResumePoint;
import org.traindeck.engine.train.state.TrainingState;
import org.traindeck.engine.train.step.Optimizers;

/**
 * Where a stage starts: its first epoch, whether it continues a checkpoint taken inside it, and whether the optimizer's
 * state carried over from the previous stage. {@link #enter} plans the stage's tiers and puts a resumed run's numbers
 * into the network.
 *
 * @param startEpoch the stage's first epoch to train
 * @param inItsStage a resume that continues inside this stage, at the checkpoint's batch
 * @param keptState  the optimizer's state goes on from the previous stage
 */
record StageEntry(int startEpoch, boolean inItsStage, boolean keptState) {

    /**
     * @param resume   the checkpoint a resume starts this stage from; null: a stage trained from where the run is
     * @param previous the previous stage's optimizer (null: none, or a new network)
     */
    static StageEntry enter(
            RunConfig config,
            int index,
            StagePlan plan,
            TrainingState state,
            TierChain tiers,
            ComputationGraph net,
            ResumePoint resume,
            OptimizerConfig previous) {
        StageConfig stage = config.stages().get(index);
        if (resume != null && resume.continuesInItsStage(index)) {
            return continueInside(index, plan, state, tiers, net, resume);
        }
        if (resume != null) {
            // the checkpoint closed the previous stage: its numbers go in under that stage's optimizer, then the
            // stage change happens as in the uninterrupted run
            OptimizerConfig closed =
                    config.stages().get(resume.checkpoint().stageIndex()).optimizer();
            Optimizers.install(net, closed, new FixedSchedule(closed.learningRate()), false);
            resume.loadInto(net, state.globalStep);
            boolean kept = stage.optimizer().sameStateShapeAs(closed);
            tiers.plan(net, plan, state, kept);
            return new StageEntry(0, false, kept);
        }
        boolean kept = stage.optimizer().sameStateShapeAs(previous);
        tiers.plan(net, plan, state, kept);
        return new StageEntry(0, false, kept);
    }

    /** A resume at the checkpoint's epoch and batch, with its epoch's running loss. */
    private static StageEntry continueInside(
            int index, StagePlan plan, TrainingState state, TierChain tiers, ComputationGraph net, ResumePoint resume) {
        Checkpoint c = resume.checkpoint();
        if (c.batchInEpoch() > plan.batchesPerEpoch) {
            throw new InvalidConfigException(
                    "stages[" + index + "]",
                    "the checkpoint is at batch " + c.batchInEpoch()
                            + " of an epoch, but this config's epochs have only " + plan.batchesPerEpoch
                            + " batches");
        }
        state.startEpoch(c.epoch(), null, c.batchInEpoch(), c.epochLossSum(), c.epochExamples());
        tiers.plan(net, plan, state, false);
        resume.loadInto(net, state.globalStep);
        return new StageEntry(c.epoch(), true, false);
    }

    /** The stage's line in the run log: its epochs and steps, batch, devices, optimizer, precision, where it resumes. */
    String describe(RunConfig config, int index, StagePlan plan, TrainingState state) {
        StageConfig stage = config.stages().get(index);
        return String.format(
                Locale.ROOT,
                "stage %d/%d \"%s\": %d epoch(s) × %d step(s), %s on %s, %s lr %.3g%s (%s)%s, %s%s",
                index + 1,
                config.stages().size(),
                stage.name(),
                stage.epochs(),
                plan.stepsPerEpoch,
                plan.describeBatch(),
                plan.devices,
                stage.optimizer().type(),
                plan.schedule.baseLr(),
                plan.describeLrScaling(config.parallel()),
                stage.schedule().type(),
                keptState ? ", optimizer state carried over" : "",
                stage.precision().json,
                inItsStage
                        ? String.format(Locale.ROOT, "; resuming at epoch %d, batch %d", startEpoch + 1, state.cursor)
                        : "");
    }
}
