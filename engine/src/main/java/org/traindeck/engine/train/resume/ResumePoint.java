package org.traindeck.engine.train.resume;

import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.checkpoint.Checkpoint;
import org.traindeck.engine.checkpoint.CheckpointFiles;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.model.kernels.transformer.TransformerBlock;
import org.traindeck.engine.train.step.UpdaterStateLayout;

/**
 * Where a resumed run continues, and the checkpoint's numbers to put into the freshly built network. A checkpoint
 * written at the end of a stage continues with the next stage, whose optimizer state is carried over (or not)
 * exactly as an uninterrupted run carries it across that stage change.
 */
public final class ResumePoint {

    private final CheckpointFiles.Contents contents;
    private final Checkpoint checkpoint;

    public ResumePoint(CheckpointFiles.Contents contents) {
        this.contents = contents;
        this.checkpoint = contents.checkpoint();
    }

    public Checkpoint checkpoint() {
        return checkpoint;
    }

    /** The stage to continue in: the checkpoint's, or the next one when the checkpoint closed its stage. */
    public int firstStage(List<StageConfig> stages) {
        int first = checkpoint.stageIndex();
        if (first < stages.size()
                && checkpoint.epoch() >= stages.get(first).epochs()
                && checkpoint.batchInEpoch() == 0) {
            first++;
        }
        return first;
    }

    /** Whether the run continues inside the checkpoint's own stage (rather than at the start of the next). */
    public boolean continuesInItsStage(int stageIndex) {
        return stageIndex == checkpoint.stageIndex();
    }

    /** Where a fingerprint's vocabulary begins: the tokens follow, separated by NUL. */
    public static final String VOCABULARY = "|vocabulary=";

    private static String tokens(String part) {
        String[] t = part.substring(VOCABULARY.length()).split("\u0000", -1);
        return t.length + " characters";
    }

    /** Checks that the checkpoint's model is the one this config builds. */
    public void checkModel(String fingerprint, long parameters) {
        int mine = fingerprint.indexOf(VOCABULARY);
        int theirs = checkpoint.modelFingerprint().indexOf(VOCABULARY);
        if (mine >= 0
                && theirs >= 0
                && !fingerprint
                        .substring(mine)
                        .equals(checkpoint.modelFingerprint().substring(theirs))) {
            throw new InvalidConfigException(
                    "data.train",
                    "the text's vocabulary (" + tokens(fingerprint.substring(mine)) + ") differs from"
                            + " the one the checkpoint was trained with ("
                            + tokens(checkpoint.modelFingerprint().substring(theirs))
                            + "): a token's id would mean another character. Resume with the run's own training text");
        }
        if (!checkpoint.modelFingerprint().equals(fingerprint) || checkpoint.parameterCount() != parameters) {
            throw new InvalidConfigException(
                    "model",
                    "the checkpoint holds " + checkpoint.parameterCount() + " parameters of another "
                            + "architecture or data shape (" + checkpoint.modelFingerprint() + "); this config builds "
                            + parameters
                            + " (" + fingerprint + ")");
        }
    }

    /**
     * Puts the checkpoint's parameters and optimizer state into {@code net}, whose optimizer must be the one of the
     * checkpoint's stage (same state layout).
     */
    public void loadInto(ComputationGraph net, long globalStep) {
        refuseSpelledOutBlocksIntoFusedOnes(net);
        INDArray params = net.params();
        params.assign(
                Nd4j.create(contents.params(), params.shape(), DataType.FLOAT).castTo(params.dataType()));
        INDArray state = net.getUpdater().getStateViewArray();
        int stateLength = state == null ? 0 : (int) state.length();
        float[] saved = laidOutFor(net, contents.updaterState());
        if (stateLength != saved.length) {
            throw new InvalidConfigException(
                    "stages[" + checkpoint.stageIndex() + "].optimizer",
                    "the checkpoint's optimizer state has "
                            + contents.updaterState().length + " values, but this stage's optimizer needs "
                            + stateLength
                            + ": the optimizer settings differ from when the checkpoint was made");
        }
        if (state != null) {
            state.assign(Nd4j.create(saved, state.shape(), DataType.FLOAT).castTo(state.dataType()));
        }
        net.getConfiguration().setIterationCount((int) globalStep);
    }

    /**
     * The checkpoint's optimizer state in today's layout. Before SameDiff layers (layer norm, attention, positions,
     * patches) had the stage's optimizer, they kept DL4J's placeholder Adam and DL4J grouped their moments in blocks of
     * their own: those moments move to where today's blocks keep them (Adam's m and v carry over; an optimizer without
     * state drops them; one with a single state cannot use them and the checkpoint is refused).
     */
    private float[] laidOutFor(ComputationGraph net, float[] saved) {
        if (checkpoint.optimizerLayout() >= Checkpoint.OPTIMIZER_LAYOUT
                || saved.length == 0
                || net.getUpdater().getStateViewArray() == null) {
            return saved;
        }
        UpdaterStateLayout now = UpdaterStateLayout.of(net);
        UpdaterStateLayout then = now.beforeSameDiffOptimizer();
        if (!then.differsFrom(now)) {
            return saved;
        }
        String where = "stages[" + checkpoint.stageIndex() + "].optimizer";
        if (then.length() != saved.length) {
            throw new InvalidConfigException(
                    where,
                    "the checkpoint's optimizer state has " + saved.length + " values, but this stage's "
                            + "optimizer, with the placeholder Adam TrainDeck gave its SameDiff layers (layer norm, attention, positions, "
                            + "patches) before they had the stage's optimizer, needs " + then.length()
                            + ": the optimizer settings differ from "
                            + "when the checkpoint was made");
        }
        if (now.sameDiffStatesPerWeight() == 1) {
            throw new InvalidConfigException(
                    where,
                    "the checkpoint was written when TrainDeck's SameDiff layers (layer norm, attention, "
                            + "positions, patches) kept a placeholder Adam; its moments cannot become this optimizer's single state: resume "
                            + "with \"adam\" or \"adamw\", or start a new run");
        }
        return then.moveTo(saved, now);
    }

    /**
     * A checkpoint from before the fused transformer block (those have no run id) holds the blocks' Adam moments
     * grouped as DL4J grouped them for its layers: the attention and layer norms with their own optimizer, apart from the
     * MLP's. The fused block has one optimizer, so the same number of values would load into the wrong places.
     */
    private void refuseSpelledOutBlocksIntoFusedOnes(ComputationGraph net) {
        if (!checkpoint.runId().isEmpty() || contents.updaterState().length == 0) {
            return;
        }
        for (Layer layer : net.getLayers()) {
            if (layer.conf().getLayer() instanceof TransformerBlock) {
                throw new InvalidConfigException(
                        "model",
                        "the checkpoint was written before TrainDeck computed transformer blocks with its "
                                + "own kernel, and its optimizer state is laid out for the blocks on DL4J's layers: resume it with \"kernel\": "
                                + "\"dl4j\" in the model (the same blocks as when it was written); a new run can use the faster kernel");
            }
        }
    }
}
