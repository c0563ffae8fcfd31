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
        for (int i = 0;
                i <= c.stageIndex()
                        && i < updated.stages().size()
                        && i < original.stages().size();
                i++) {
            boolean starts = original.startsNetwork(i) || updated.startsNetwork(i);
            if (starts && !original.modelAt(i).equals(updated.modelAt(i))) {
                problems.add(problem(
                        updated.modelPathAt(i),
                        "differs from the model the checkpoint was trained with ("
                                + original.modelAt(i).type()
                                + "): a checkpoint's parameters fit only their own architecture"));
            }
        }
        if (original.seed() != updated.seed()) {
            problems.add(problem(
                    "seed",
                    "cannot change on resume (it was " + original.seed()
                            + "): it decides the validation split and the data order"));
        }
        int at = c.stageIndex();
        if (updated.stages().size() <= Math.min(at, original.stages().size() - 1)) {
            problems.add(problem(
                    "stages",
                    "has " + updated.stages().size() + " stage(s), but the checkpoint is in stage " + (at + 1) + " (\""
                            + c.stageName() + "\")"));
        }
        for (int i = 0;
                i <= at && i < updated.stages().size() && i < original.stages().size();
                i++) {
            StageConfig was = original.stages().get(i);
            StageConfig now = updated.stages().get(i);
            String path = "stages[" + i + "]";
            if (!original.dataFor(was).equals(updated.dataFor(now))) {
                problems.add(problem(path + ".data", "cannot change for a stage that has already trained on it"));
            }
            if (i < at) {
                continue;
            }
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
        if (!problems.isEmpty()) {
            throw new InvalidConfigException(problems);
        }
    }

    private static ConfigProblem problem(String path, String message) {
        return new ConfigProblem(ConfigProblem.Severity.ERROR, path, message, 0, 0);
    }
}
