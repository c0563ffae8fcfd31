package org.traindeck.engine.model.kernels.transformer;

import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.MODULATION_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.MODULATION_WEIGHTS;

import java.util.Arrays;
import org.traindeck.engine.model.kernels.BlockParameters;
import org.traindeck.engine.model.kernels.FloatExp;

/**
 * adaLN-Zero (DiT): m = SiLU(c) Wm + bm per example, [6 W] as shift, scale and gate of the attention branch, then of
 * the MLP branch. A norm's output n becomes n (1 + scale) + shift, a branch's output is multiplied by its gate before
 * it is added back. Wm and bm start at zero, so the block starts as the identity. Rows are (example, step), so row r
 * takes example r / T's vectors. The forward product is [mb, C] by [C, 6 W]: small, so a plain loop on the heap; the
 * backward pass's two are OpenBLAS's ({@link ModulationProducts}: as loops they cost twice PyTorch's adaLN). Every loop
 * reads and writes row-sized arrays at one index (an example's vectors and each row copied in and out): C2 vectorises
 * those, not loops that read one array at another array's offset.
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
    /** Row-sized scratch: an example's vectors (or their gradients' sums) and rows copied in. */
    private final float[] first;

    private final float[] second;
    private final float[] row;
    private final float[] other;
    /** The backward pass's native operands (freed with the object: a few kilobytes). */
    private ModulationProducts products;

    TransformerBlockModulation(int width, int conditionWidth) {
        this.width = width;
        this.conditionWidth = conditionWidth;
        first = new float[width];
        second = new float[width];
        row = new float[width];
        other = new float[width];
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
            float s = 1 / (1 + FloatExp.exp(-x));
            silu[i] = x * s;
            siluSlope[i] = s * (1 + x * (1 - s));
        }
        float[] w = p.vector(MODULATION_WEIGHTS);
        float[] bias = p.vector(MODULATION_BIAS);
        modulation = new float[mb * six];
        float[] sum = new float[six];
        float[] weights = new float[six];
        for (int e = 0; e < mb; e++) {
            System.arraycopy(bias, 0, sum, 0, six);
            for (int i = 0; i < c; i++) {
                float a = silu[e * c + i];
                System.arraycopy(w, i * six, weights, 0, six);
                for (int k = 0; k < six; k++) {
                    sum[k] += a * weights[k];
                }
            }
            System.arraycopy(sum, 0, modulation, e * six, six);
        }
        int rows = mb * steps * width;
        for (int b = 0; b < 2; b++) {
            if (ungated[b] == null || ungated[b].length != rows) {
                ungated[b] = new float[rows];
            }
        }
    }

    /** Where example e's vector of the branch's part starts. */
    private int at(int e, int branch, int part) {
        return e * 6 * width + (3 * branch + part) * width;
    }

    /** rows = rows (1 + scale) + shift of the branch (0: attention, 1: MLP), in place. */
    void modulate(float[] rows, int n, int branch) {
        int w = width;
        float[] scale = first;
        float[] shift = second;
        for (int r = 0; r < n; r++) {
            if (r % steps == 0) {
                int e = r / steps;
                System.arraycopy(modulation, at(e, branch, SCALE), scale, 0, w);
                System.arraycopy(modulation, at(e, branch, SHIFT), shift, 0, w);
                for (int j = 0; j < w; j++) {
                    scale[j] = 1 + scale[j];
                }
            }
            System.arraycopy(rows, r * w, row, 0, w);
            for (int j = 0; j < w; j++) {
                row[j] = row[j] * scale[j] + shift[j];
            }
            System.arraycopy(row, 0, rows, r * w, w);
        }
    }

    /** out = residual + gate mask (branch + bias); keeps mask (branch + bias) for the gate's gradient. */
    void gatedResidual(
            float[] residual, float[] branch, float[] bias, float[] mask, int maskAt, float[] out, int n, int index) {
        int w = width;
        float[] kept = ungated[index];
        float[] gate = first;
        for (int r = 0; r < n; r++) {
            if (r % steps == 0) {
                System.arraycopy(modulation, at(r / steps, index, GATE), gate, 0, w);
            }
            int o = r * w;
            System.arraycopy(branch, o, row, 0, w);
            for (int j = 0; j < w; j++) {
                row[j] += bias[j];
            }
            if (mask != null) {
                System.arraycopy(mask, maskAt + o, other, 0, w);
                for (int j = 0; j < w; j++) {
                    row[j] *= other[j];
                }
            }
            System.arraycopy(row, 0, kept, o, w);
            System.arraycopy(residual, o, other, 0, w);
            for (int j = 0; j < w; j++) {
                other[j] += gate[j] * row[j];
            }
            System.arraycopy(other, 0, out, o, w);
        }
    }

    /** Zeroes the six vectors' gradients before a backward pass. */
    void beginBackward() {
        modulationGradient = new float[modulation.length];
    }

    /** Adds an example's summed gradient of one part to the six vectors' gradients. */
    private void addGradient(float[] sum, int e, int branch, int part) {
        int at = at(e, branch, part);
        for (int j = 0; j < width; j++) {
            modulationGradient[at + j] += sum[j];
        }
        Arrays.fill(sum, 0f);
    }

    /**
     * The gate's gradient from the output's {@code dOut}; {@code dBranch} (dOut times the mask on entry) times the
     * gate, in place: the gradient of the branch's output.
     */
    void gateBackward(float[] dOut, float[] dBranch, int n, int branch) {
        int w = width;
        float[] kept = ungated[branch];
        float[] gate = first;
        float[] sum = second;
        Arrays.fill(sum, 0f);
        for (int r = 0; r < n; r++) {
            if (r % steps == 0) {
                System.arraycopy(modulation, at(r / steps, branch, GATE), gate, 0, w);
            }
            int o = r * w;
            System.arraycopy(dOut, o, row, 0, w);
            System.arraycopy(kept, o, other, 0, w);
            for (int j = 0; j < w; j++) {
                sum[j] += row[j] * other[j];
            }
            System.arraycopy(dBranch, o, row, 0, w);
            for (int j = 0; j < w; j++) {
                row[j] *= gate[j];
            }
            System.arraycopy(row, 0, dBranch, o, w);
            if ((r + 1) % steps == 0) {
                addGradient(sum, r / steps, branch, GATE);
            }
        }
    }

    /**
     * Shift's and scale's gradients from {@code dRows} (the modulated norm's gradient), which becomes the norm's own
     * output gradient, dRows (1 + scale), in place. The norm's output is xhat gain + bias.
     */
    void modulateBackward(float[] dRows, float[] xhat, float[] gain, float[] bias, int n, int branch) {
        int w = width;
        float[] scale = first;
        float[] shiftSum = second;
        float[] scaleSum = new float[w];
        Arrays.fill(shiftSum, 0f);
        for (int r = 0; r < n; r++) {
            if (r % steps == 0) {
                System.arraycopy(modulation, at(r / steps, branch, SCALE), scale, 0, w);
                for (int j = 0; j < w; j++) {
                    scale[j] = 1 + scale[j];
                }
            }
            int o = r * w;
            System.arraycopy(dRows, o, row, 0, w);
            System.arraycopy(xhat, o, other, 0, w);
            for (int j = 0; j < w; j++) {
                float d = row[j];
                shiftSum[j] += d;
                scaleSum[j] += d * (other[j] * gain[j] + bias[j]);
                row[j] = d * scale[j];
            }
            System.arraycopy(row, 0, dRows, o, w);
            if ((r + 1) % steps == 0) {
                addGradient(shiftSum, r / steps, branch, SHIFT);
                addGradient(scaleSum, r / steps, branch, SCALE);
            }
        }
    }

    /** Wm's and bm's gradients (written) and the conditions' [mb, C] (returned); the products in {@link ModulationProducts}. */
    float[] backward(BlockParameters p) {
        int c = conditionWidth;
        int six = 6 * width;
        if (products == null || !products.fits(mb)) {
            products = new ModulationProducts(mb, c, six);
        }
        float[] db = new float[six];
        float[] g = new float[six];
        for (int e = 0; e < mb; e++) {
            System.arraycopy(modulationGradient, e * six, g, 0, six);
            for (int k = 0; k < six; k++) {
                db[k] += g[k];
            }
        }
        p.setGradient(MODULATION_BIAS, db, six);
        float[] dCondition = products.backward(silu, modulationGradient, p);
        for (int i = 0; i < dCondition.length; i++) {
            dCondition[i] *= siluSlope[i];
        }
        return dCondition;
    }
}
