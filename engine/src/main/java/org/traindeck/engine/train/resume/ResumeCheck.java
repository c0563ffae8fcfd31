package org.traindeck.engine.train.resume;

import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;

/**
 * Which settings may change when a run is resumed. Safe: more epochs, the learning rate and schedule, clipping,
 * augmentation, validation interval, devices, logging, checkpoint policy, and stages not yet begun. Unsafe, and
 * refused with the reason: the model, the seed (it picks the validation split), the data of stages already trained,
 * the optimizer's kind and state-shaping settings, the precision, fewer epochs than already done, and (mid-epoch)
 * the batch layout.
 */
public final class ResumeCheck {

    private ResumeCheck() {}

    public static void check(RunConfig original, RunConfig updated, Checkpoint c) {
        List<ConfigProblem> problems = new ArrayList<>();
        int at = c.stageIndex();
        int stagesInBoth = Math.min(updated.stages().size(), original.stages().size());
        for (int i = 0; i <= at && i < stagesInBoth; i++) {
            checkModel(original, updated, i, problems);
        }
        if (original.seed() != updated.seed()) {
            problems.add(problem(
                    "seed",
                    "cannot change on resume (it was " + original.seed()
                            + "): it decides the validation split and the data order"));
        }
        if (updated.stages().size() <= Math.min(at, original.stages().size() - 1)) {
            problems.add(problem(
                    "stages",
                    "has " + updated.stages().size() + " stage(s), but the checkpoint is in stage " + (at + 1) + " (\""
                            + c.stageName() + "\")"));
        }
        for (int i = 0; i <= at && i < stagesInBoth; i++) {
            StageConfig was = original.stages().get(i);
            StageConfig now = updated.stages().get(i);
            if (!original.dataFor(was).equals(updated.dataFor(now))) {
                problems.add(
                        problem("stages[" + i + "].data", "cannot change for a stage that has already trained on it"));
            }
            if (i == at) {
                checkCurrentStage(was, now, "stages[" + i + "]", c, problems);
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidConfigException(problems);
        }
    }

    /** A stage that starts a network must build the one the checkpoint was trained with. */
    private static void checkModel(RunConfig original, RunConfig updated, int i, List<ConfigProblem> problems) {
        boolean starts = original.startsNetwork(i) || updated.startsNetwork(i);
        if (starts && !original.modelAt(i).equals(updated.modelAt(i))) {
            problems.add(problem(
                    updated.modelPathAt(i),
                    "differs from the model the checkpoint was trained with ("
                            + original.modelAt(i).type()
                            + "): a checkpoint's parameters fit only their own architecture"));
        }
    }

    /** The stage the checkpoint is in: its optimizer state, precision, epochs done and (mid-epoch) batch layout. */
    private static void checkCurrentStage(
            StageConfig was, StageConfig now, String path, Checkpoint c, List<ConfigProblem> problems) {
        if (!now.optimizer().sameStateShapeAs(was.optimizer())) {
            problems.add(problem(
                    path + ".optimizer",
                    "only its learning rate may change on resume: the checkpoint's optimizer " + "state belongs to "
                            + was.optimizer().type() + " with the settings it had"));
        }
        if (now.precision() != was.precision()) {
            problems.add(problem(
                    path + ".precision",
                    "cannot change in the middle of a stage (it was " + was.precision().json + ")"));
        }
        int done = c.epoch() + (c.batchInEpoch() > 0 ? 1 : 0);
        if (now.epochs() < Math.min(done, was.epochs())) {
            problems.add(problem(
                    path + ".epochs",
                    "is " + now.epochs() + ", but the checkpoint has already reached epoch " + done
                            + " of this stage"));
        }
        if (c.batchInEpoch() > 0
                && (now.batchSize() != was.batchSize() || now.accumulationSteps() != was.accumulationSteps())) {
            problems.add(problem(
                    path + ".batchSize",
                    "cannot change in the middle of an epoch (the checkpoint is at batch " + c.batchInEpoch()
                            + " of it); resume from an end-of-epoch checkpoint to change it"));
        }
    }

    private static ConfigProblem problem(String path, String message) {
        return new ConfigProblem(ConfigProblem.Severity.ERROR, path, message, 0, 0);
    }
}
