package org.traindeck.engine.model.kernels.transformer;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.BlockParameters;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * What a conditioned or cross-attending block reads besides its tokens: its packed input split ({@link
 * BlockInputsLayout}), the adaLN-Zero part ({@link TransformerBlockModulation}, null without a condition) and the
 * cross-attention ({@link TransformerBlockCrossAttention}, null without a context) with its output rows.
 */
final class TransformerBlockSides {

    private final TransformerBlock conf;
    private BlockInputsLayout layout;
    private float[] packed;
    final TransformerBlockModulation modulation;
    final TransformerBlockCrossAttention cross;
    /** The cross-attention's output rows [rows, C]: the MLP branch's input. */
    private float[] crossed;
    /** The condition's and the context's copies out of the packed input, and the packed gradient, kept. */
    private float[] condition = new float[0];

    private float[] context = new float[0];
    private float[] packedGradient = new float[0];

    TransformerBlockSides(TransformerBlock conf) {
        this.conf = conf;
        int width = (int) conf.getWidth();
        modulation = conf.getConditionWidth() > 0
                ? new TransformerBlockModulation(width, (int) conf.getConditionWidth())
                : null;
        cross = conf.hasContext() ? new TransformerBlockCrossAttention(width, conf.getHeads(), true, true) : null;
    }

    /** Reads a packed input [mb, size] (dense, c order); returns the minibatch and the tokens' steps. */
    int[] read(INDArray in) {
        int mb = (int) in.size(0);
        int size = (int) in.size(1);
        if (packed == null || packed.length != mb * size) {
            packed = new float[mb * size];
        }
        Sgemm.buffer(in).get(0, packed, 0, packed.length);
        layout = BlockInputsLayout.of(
                packed,
                mb,
                size,
                (int) conf.getWidth(),
                (int) conf.getConditionWidth(),
                conf.hasContext(),
                "TransformerBlock \"" + conf.getLayerName() + "\"");
        return new int[] {mb, layout.steps()};
    }

    /** The tokens [mb, C, T] into {@code into}. */
    void tokens(float[] into) {
        layout.tokens(packed, into);
    }

    /** The six adaLN vectors per example of this input (a conditioned block). */
    void modulate(int mb, int steps, BlockParameters p) {
        condition = layout.condition(packed, condition);
        modulation.forward(condition, mb, steps, p);
    }

    /** The cross-attention after the self-attention's residual {@code r1}: its output rows, or r1 without a context. */
    float[] crossAttention(float[] r1, int mb, int steps, BlockParameters p, float[] masks, float[][] local) {
        if (cross == null) {
            return r1;
        }
        int nc = mb * steps * (int) conf.getWidth();
        if (crossed == null || crossed.length != nc) {
            crossed = new float[nc];
        }
        context = layout.context(packed, context);
        cross.forward(r1, context, mb, steps, layout.contextSteps(), p, masks, 2 * nc, crossed, local);
        return crossed;
    }

    /**
     * The packed input's gradient from the tokens' [mb, C, T] and the condition's and context's (null: none), in the
     * first mb {@link #size} floats of the array returned.
     */
    float[] gradient(float[] tokens, float[] dCondition, float[] dContext) {
        packedGradient = layout.gradient(tokens, dCondition, dContext, packedGradient);
        return packedGradient;
    }

    int size() {
        return layout.size();
    }
}
