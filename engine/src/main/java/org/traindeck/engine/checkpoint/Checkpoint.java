package org.traindeck.engine.checkpoint;

import java.nio.file.Path;
import java.util.Map;

/**
 * What a checkpoint records besides the numbers: where the run was and what made it.
 *
 * @param stageIndex    the stage to continue in
 * @param epoch         the epoch (within the stage) to continue in
 * @param batchInEpoch  batches of that epoch already trained on (0 at an epoch boundary)
 * @param globalStep    optimizer steps done in the whole run
 * @param stageStartStep the global step at which the stage began (its schedule counts from there)
 * @param elapsedSeconds training time so far
 * @param epochLossSum  the running epoch's loss sum and example count so far (for the epoch's mean)
 * @param best          the best monitored value per stage name so far
 * @param modelFingerprint what the parameters belong to: architecture, data shape and parameter count
 * @param reason        why it was written: "epoch", "time", "stage-end", "stop", "best"
 * @param workers       data-parallel workers when it was written (a mid-epoch position depends on it)
 * @param runId         the id of the run that wrote it ({@link RunIdentity}); "" in checkpoints from before ids
 * @param optimizerLayout how the optimizer state is laid out: {@link #OPTIMIZER_LAYOUT} now; 1 in checkpoints from
 *                      before SameDiff layers (layer norm, attention, positions, patches) had the stage's optimizer,
 *                      whose state DL4J then grouped in blocks of their own
 */
public record Checkpoint(
        int formatVersion,
        String runName,
        String stageName,
        int stageIndex,
        int epoch,
        int batchInEpoch,
        long globalStep,
        long stageStartStep,
        double elapsedSeconds,
        double epochLossSum,
        long epochExamples,
        Map<String, Double> best,
        String modelFingerprint,
        long parameterCount,
        long updaterStateCount,
        String dataType,
        String reason,
        long createdMillis,
        int workers,
        String runId,
        int optimizerLayout) {

    public static final int FORMAT_VERSION = 1;
    public static final String FORMAT = "traindeck-checkpoint";
    public static final int OPTIMIZER_LAYOUT = 2;

    /** A checkpoint of today's optimizer layout. */
    public Checkpoint(
            int formatVersion,
            String runName,
            String stageName,
            int stageIndex,
            int epoch,
            int batchInEpoch,
            long globalStep,
            long stageStartStep,
            double elapsedSeconds,
            double epochLossSum,
            long epochExamples,
            Map<String, Double> best,
            String modelFingerprint,
            long parameterCount,
            long updaterStateCount,
            String dataType,
            String reason,
            long createdMillis,
            int workers,
            String runId) {
        this(
                formatVersion,
                runName,
                stageName,
                stageIndex,
                epoch,
                batchInEpoch,
                globalStep,
                stageStartStep,
                elapsedSeconds,
                epochLossSum,
                epochExamples,
                best,
                modelFingerprint,
                parameterCount,
                updaterStateCount,
                dataType,
                reason,
                createdMillis,
                workers,
                runId,
                OPTIMIZER_LAYOUT);
    }

    public Checkpoint {
        best = Map.copyOf(best);
        runId = runId == null ? "" : runId;
    }

    /**
     * A checkpoint file together with what it says, or why it cannot be used; {@code foreign} says why it is another
     * run's (null when it is the folder's own, or nothing tells).
     */
    public record Listed(Path file, Checkpoint checkpoint, String problem, String foreign) {
        public Listed(Path file, Checkpoint checkpoint, String problem) {
            this(file, checkpoint, problem, null);
        }

        public boolean isValid() {
            return problem == null;
        }
    }
}
