package org.traindeck.engine.model.kernels.transformer;

import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.MODULATION_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.MODULATION_WEIGHTS;

import org.traindeck.engine.model.kernels.BlockParameters;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/**
 * adaLN-Zero (DiT): m = SiLU(c) Wm + bm per example, [6 W] as shift, scale and gate of the attention branch, then of
 * the MLP branch. A norm's output n becomes n (1 + scale) + shift, a branch's output is multiplied by its gate before
 * it is added back. Wm and bm start at zero, so the block starts as the identity. Rows are (example, step), so row r
 * takes example r / T's vectors. The products are [mb, C] by [C, 6 W]: small, so plain loops on the heap.
 */
final class TransformerBlockModulation {

    /** Offsets of each branch's shift, scale and gate in an example's [6 W] vector. */
    static final int SHIFT = 0;

    static final int SCALE = 1;
    static final int GATE = 2;

    private final int width;
    private final int conditionWidth;
    private int mb;
    private int steps;
    private float[] silu;
    private float[] siluSlope;
    private float[] modulation;
    private float[] modulationGradient;
    /** Each branch's output before its gate (dropout applied), [rows, W]: its gate's gradient reads it. */
    private final float[][] ungated = new float[2][];

    TransformerBlockModulation(int width, int conditionWidth) {
        this.width = width;
        this.conditionWidth = conditionWidth;
    }

    /** The six vectors per example from the conditions [mb, C]. */
    void forward(float[] condition, int mb, int steps, BlockParameters p) {
        this.mb = mb;
        this.steps = steps;
        int c = conditionWidth;
        int six = 6 * width;
        silu = new float[mb * c];
        siluSlope = new float[mb * c];
        for (int i = 0; i < silu.length; i++) {
            float x = condition[i];
            float s = 1 / (1 + TransformerBlockMath.exp(-x));
            silu[i] = x * s;
            siluSlope[i] = s * (1 + x * (1 - s));
        }
        float[] w = p.vector(MODULATION_WEIGHTS);
        float[] bias = p.vector(MODULATION_BIAS);
        modulation = new float[mb * six];
        float[] row = new float[six];
        for (int e = 0; e < mb; e++) {
            System.arraycopy(bias, 0, row, 0, six);
            for (int i = 0; i < c; i++) {
                float a = silu[e * c + i];
                int at = i * six;
                for (int k = 0; k < six; k++) {
                    row[k] += a * w[at + k];
                }
            }
            System.arraycopy(row, 0, modulation, e * six, six);
        }
        int rows = mb * steps * width;
        for (int b = 0; b < 2; b++) {
            if (ungated[b] == null || ungated[b].length != rows) {
                ungated[b] = new float[rows];
            }
        }
    }

    private int at(int row, int branch, int part) {
        return (row / steps) * 6 * width + (3 * branch + part) * width;
    }

    /** rows = rows (1 + scale) + shift of the branch (0: attention, 1: MLP), in place. */
    void modulate(float[] rows, int n, int branch) {
        for (int r = 0; r < n; r++) {
            int shift = at(r, branch, SHIFT);
            int scale = at(r, branch, SCALE);
            int o = r * width;
            for (int j = 0; j < width; j++) {
                rows[o + j] = rows[o + j] * (1 + modulation[scale + j]) + modulation[shift + j];
            }
        }
    }

    /** out = residual + gate mask (branch + bias); keeps mask (branch + bias) for the gate's gradient. */
    void gatedResidual(
            float[] residual, float[] branch, float[] bias, float[] mask, int maskAt, float[] out, int n, int index) {
        float[] kept = ungated[index];
        for (int r = 0; r < n; r++) {
            int gate = at(r, index, GATE);
            int o = r * width;
            for (int j = 0; j < width; j++) {
                float v = branch[o + j] + bias[j];
                if (mask != null) {
                    v *= mask[maskAt + o + j];
                }
                kept[o + j] = v;
                out[o + j] = residual[o + j] + modulation[gate + j] * v;
            }
        }
    }

    /** Zeroes the six vectors' gradients before a backward pass. */
    void beginBackward() {
        modulationGradient = new float[modulation.length];
    }

    /**
     * The gate's gradient from the output's {@code dOut}; {@code dBranch} (dOut times the mask on entry) times the
     * gate, in place: the gradient of the branch's output.
     */
    void gateBackward(float[] dOut, float[] dBranch, int n, int branch) {
        float[] kept = ungated[branch];
        for (int r = 0; r < n; r++) {
            int gate = at(r, branch, GATE);
            int o = r * width;
            for (int j = 0; j < width; j++) {
                modulationGradient[gate + j] += dOut[o + j] * kept[o + j];
                dBranch[o + j] *= modulation[gate + j];
            }
        }
    }

    /**
     * Shift's and scale's gradients from {@code dRows} (the modulated norm's gradient), which becomes the norm's own
     * output gradient, dRows (1 + scale), in place. The norm's output is xhat gain + bias.
     */
    void modulateBackward(float[] dRows, float[] xhat, float[] gain, float[] bias, int n, int branch) {
        for (int r = 0; r < n; r++) {
            int shift = at(r, branch, SHIFT);
            int scale = at(r, branch, SCALE);
            int o = r * width;
            for (int j = 0; j < width; j++) {
                float d = dRows[o + j];
                modulationGradient[shift + j] += d;
                modulationGradient[scale + j] += d * (xhat[o + j] * gain[j] + bias[j]);
                dRows[o + j] = d * (1 + modulation[scale + j]);
            }
        }
    }

    /** Wm's and bm's gradients (written) and the conditions' [mb, C] (returned). */
    float[] backward(BlockParameters p) {
        int c = conditionWidth;
        int six = 6 * width;
        float[] w = p.vector(MODULATION_WEIGHTS);
        float[] dw = new float[c * six];
        float[] db = new float[six];
        float[] dCondition = new float[mb * c];
        for (int e = 0; e < mb; e++) {
            int m = e * six;
            for (int k = 0; k < six; k++) {
                db[k] += modulationGradient[m + k];
            }
            for (int i = 0; i < c; i++) {
                float a = silu[e * c + i];
                int at = i * six;
                double dot = 0;
                for (int k = 0; k < six; k++) {
                    dw[at + k] += a * modulationGradient[m + k];
                    dot += modulationGradient[m + k] * w[at + k];
                }
                dCondition[e * c + i] = (float) dot * siluSlope[e * c + i];
            }
        }
        p.setGradient(MODULATION_WEIGHTS, dw, dw.length);
        p.setGradient(MODULATION_BIAS, db, six);
        return dCondition;
    }
}
