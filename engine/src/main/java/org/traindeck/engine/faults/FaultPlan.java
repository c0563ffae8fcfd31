package org.traindeck.engine.faults;

import java.io.IOException;
import java.util.EnumSet;
import java.util.Set;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.parallel.Tier;
import org.traindeck.engine.train.RunFaults;

/**
 * Rare failures made to happen on demand, for tests: handed to a run when it is created, never read from the
 * environment, so production runs cannot be affected by a stray setting. A step number of -1 (or an empty set) means
 * off. The plan is the tests' front door only: as {@link RunFaults} the run hands each part to the one seam where it
 * happens (the training loop's faults to the trainer, the write faults to the checkpoint writer).
 *
 * @param failTiers                  these tiers fail while being set up
 * @param failWorkerAtStep           a worker fails while computing global step N (in the middle of the step)
 * @param failRoundAtBatch           parameter averaging fails between two rounds when it reaches batch N of an epoch
 * @param stallAtStep                global step N never finishes (for the watchdog)
 * @param nanAtStep                  the loss and gradient of global step N become NaN
 * @param checkpointFullDiskFromStep writing a checkpoint at global step N or later fails halfway, as on a full disk
 * @param checkpointWritePauseMs     a pause between a checkpoint's entries, widening the window for a crash mid-write
 * @param stopAfterStep              the run is asked to stop right after global step N, as a user's Stop would (tests
 *                                   that need the stop at an exact step cannot rely on when a listener sees an event)
 * @param validationBatchPauseMs     a pause in each validation batch, so that a signal lands in the middle of validation
 */
public record FaultPlan(
        Set<Tier> failTiers,
        long failWorkerAtStep,
        long failRoundAtBatch,
        long stallAtStep,
        long nanAtStep,
        long checkpointFullDiskFromStep,
        long checkpointWritePauseMs,
        long stopAfterStep,
        long validationBatchPauseMs)
        implements RunFaults {

    public static final FaultPlan NONE = new FaultPlan(Set.of(), -1, -1, -1, -1, -1, 0, -1, 0);

    public FaultPlan {
        failTiers = failTiers.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(failTiers));
    }

    @Override
    public boolean failsTier(Tier tier) {
        return failTiers.contains(tier);
    }

    @Override
    public void beforeData(Checkpoint checkpoint) throws IOException {
        if (checkpointFullDiskFromStep >= 0 && checkpoint.globalStep() >= checkpointFullDiskFromStep) {
            throw new IOException("No space left on device (injected)");
        }
    }

    @Override
    public void afterEntry(String entry) {
        if (checkpointWritePauseMs > 0) {
            try {
                Thread.sleep(checkpointWritePauseMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public FaultPlan failingTiers(Tier... tiers) {
        return new FaultPlan(
                Set.of(tiers),
                failWorkerAtStep,
                failRoundAtBatch,
                stallAtStep,
                nanAtStep,
                checkpointFullDiskFromStep,
                checkpointWritePauseMs,
                stopAfterStep,
                validationBatchPauseMs);
    }

    public FaultPlan failingWorkerAtStep(long step) {
        return new FaultPlan(
                failTiers,
                step,
                failRoundAtBatch,
                stallAtStep,
                nanAtStep,
                checkpointFullDiskFromStep,
                checkpointWritePauseMs,
                stopAfterStep,
                validationBatchPauseMs);
    }

    public FaultPlan failingRoundAtBatch(long batch) {
        return new FaultPlan(
                failTiers,
                failWorkerAtStep,
                batch,
                stallAtStep,
                nanAtStep,
                checkpointFullDiskFromStep,
                checkpointWritePauseMs,
                stopAfterStep,
                validationBatchPauseMs);
    }

    public FaultPlan stallingAtStep(long step) {
        return new FaultPlan(
                failTiers,
                failWorkerAtStep,
                failRoundAtBatch,
                step,
                nanAtStep,
                checkpointFullDiskFromStep,
                checkpointWritePauseMs,
                stopAfterStep,
                validationBatchPauseMs);
    }

    public FaultPlan nanAtStep(long step) {
        return new FaultPlan(
                failTiers,
                failWorkerAtStep,
                failRoundAtBatch,
                stallAtStep,
                step,
                checkpointFullDiskFromStep,
                checkpointWritePauseMs,
                stopAfterStep,
                validationBatchPauseMs);
    }

    public FaultPlan diskFullFromStep(long step) {
        return new FaultPlan(
                failTiers,
                failWorkerAtStep,
                failRoundAtBatch,
                stallAtStep,
                nanAtStep,
                step,
                checkpointWritePauseMs,
                stopAfterStep,
                validationBatchPauseMs);
    }

    public FaultPlan stoppingAfterStep(long step) {
        return new FaultPlan(
                failTiers,
                failWorkerAtStep,
                failRoundAtBatch,
                stallAtStep,
                nanAtStep,
                checkpointFullDiskFromStep,
                checkpointWritePauseMs,
                step,
                validationBatchPauseMs);
    }

    public FaultPlan pausingCheckpointWrites(long millis) {
        return new FaultPlan(
                failTiers,
                failWorkerAtStep,
                failRoundAtBatch,
                stallAtStep,
                nanAtStep,
                checkpointFullDiskFromStep,
                millis,
                stopAfterStep,
                validationBatchPauseMs);
    }

    public FaultPlan pausingValidationBatches(long millis) {
        return new FaultPlan(
                failTiers,
                failWorkerAtStep,
                failRoundAtBatch,
                stallAtStep,
                nanAtStep,
                checkpointFullDiskFromStep,
                checkpointWritePauseMs,
                stopAfterStep,
                millis);
    }
}
