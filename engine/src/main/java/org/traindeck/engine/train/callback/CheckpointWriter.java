package org.traindeck.engine.train.callback;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.checkpoint.CheckpointStore;
import org.traindeck.engine.checkpoint.CheckpointWriteHook;
import org.traindeck.engine.checkpoint.RunIdentity;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.events.LifecycleEvent;
import org.traindeck.engine.train.state.RunEvents;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Writes a checkpoint whose position is where the run will continue. On failure the previous checkpoint stays, the
 * user is told at once, and the caller learns whether to go on (the config's {@code checkpoint.onWriteError}).
 */
public final class CheckpointWriter {

    /** Where the run will continue from the checkpoint being written. */
    record Position(
            int stage, int epoch, int batch, long stageStart, double epochLossSum, long epochExamples, int workers) {}

    private final RunConfig config;
    private final String configJson;
    private final Path runDir;
    private final CheckpointStore store;
    private final RunEvents events;
    private final CheckpointWriteHook writeHook;
    private final Supplier<String> modelFingerprint;
    private WeightEma ema;

    public CheckpointWriter(
            RunConfig config,
            String configJson,
            Path runDir,
            RunEvents events,
            CheckpointWriteHook writeHook,
            String modelFingerprint) {
        this(config, configJson, runDir, events, writeHook, () -> modelFingerprint);
    }

    /** @param modelFingerprint the fingerprint of the network training now (a cascade's stages train several) */
    public CheckpointWriter(
            RunConfig config,
            String configJson,
            Path runDir,
            RunEvents events,
            CheckpointWriteHook writeHook,
            Supplier<String> modelFingerprint) {
        this.config = config;
        this.configJson = configJson;
        this.runDir = runDir;
        this.store = new CheckpointStore(runDir);
        this.events = events;
        this.writeHook = writeHook;
        this.modelFingerprint = modelFingerprint;
    }

    /** Checkpoints hold this weight average too, while its stage keeps one. */
    public CheckpointWriter withEma(WeightEma average) {
        this.ema = average;
        return this;
    }

    /** @return false when it failed and the policy says stop */
    boolean save(ComputationGraph net, TrainingState state, String reason, Position at) {
        Path file = "best".equals(reason) ? store.bestFile(state.stageName) : store.regularFile(state.globalStep);
        try {
            float[] params = net.params().castTo(DataType.FLOAT).toFloatVector();
            INDArray updaterState = net.getUpdater().getStateViewArray();
            float[] updater = updaterState == null
                    ? new float[0]
                    : updaterState.castTo(DataType.FLOAT).toFloatVector();
            Checkpoint c = new Checkpoint(
                    Checkpoint.FORMAT_VERSION,
                    config.name(),
                    state.stageName,
                    at.stage(),
                    at.epoch(),
                    at.batch(),
                    state.globalStep,
                    at.stageStart(),
                    state.elapsed(),
                    at.epochLossSum(),
                    at.epochExamples(),
                    state.best,
                    modelFingerprint.get(),
                    params.length,
                    updater.length,
                    net.getConfiguration().getDataType().name(),
                    reason,
                    System.currentTimeMillis(),
                    at.workers(),
                    RunIdentity.of(runDir));
            CheckpointFiles.write(file, c, configJson, params, updater, ema == null ? null : ema.values(), writeHook);
            state.lastCheckpointNanos = System.nanoTime();
            if (!"best".equals(reason)) {
                state.lastCheckpoint = file;
                store.prune(config.checkpoint().keepLast());
            }
            events.lifecycle(LifecycleEvent.Kind.CHECKPOINT_SAVED, reason + " checkpoint " + runDir.relativize(file));
            return true;
        } catch (IOException | RuntimeException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            if (why.contains("No space left")) {
                why = "the disk is full (" + why + ")";
            }
            events.checkpointFailed(
                    "the " + reason + " checkpoint at step " + state.globalStep
                            + " could not be written: " + why + ". "
                            + (state.lastCheckpoint == null
                                    ? "No earlier checkpoint exists."
                                    : "The previous checkpoint, " + state.lastCheckpoint.getFileName()
                                            + ", is intact."),
                    why);
            return !"stop".equals(config.checkpoint().onWriteError());
        }
    }
}
