package org.traindeck.engine.model.kernels.transformer;

import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.MLP1_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.MLP1_WEIGHTS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.MLP2_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.MLP2_WEIGHTS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.NORM1_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.NORM1_GAIN;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.NORM2_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.NORM2_GAIN;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.OUT_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.OUT_WEIGHTS;

import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelParameters;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers.Region;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/**
 * The fused block's forward and backward passes on one set of buffers, for {@link TransformerBlockLayer}: the
 * products as {@link Sgemm} calls on the parameters' and buffers' native memory, the elementwise work as Java loops on
 * heap rows, a conditioned block's modulation and a cross-attending block's second attention through its
 * {@link TransformerBlockSides}.
 */
final class TransformerBlockPasses {

    private final TransformerBlock conf;
    /** The parameters' and gradients' views, bound by the layer before each pass. */
    final KernelParameters p = new KernelParameters();

    /** A conditioned or cross-attending block's side inputs and their parts; null for a plain block. */
    TransformerBlockSides sides;

    /** This step's dropout masks, null without dropout (or outside training). */
    private float[] masks;

    /**
     * With recompute, the attention's output [rows, C] of the last forward pass, kept as well as the input: the
     * backward pass then computes again only what grows linearly with the length (norms, projections, MLP) and the
     * probabilities once per example, not the attention's forward pass a second time.
     */
    private Region keptAttended;

    private int keptRows;

    TransformerBlockPasses(TransformerBlock conf) {
        this.conf = conf;
    }

    /** This step's dropout masks (null: none), read by the forward pass and the backward pass after it. */
    void useMasks(float[] masks) {
        this.masks = masks;
    }

    private int width() {
        return (int) conf.getWidth();
    }

    private int hidden() {
        return (int) conf.getHidden();
    }

    private int heads() {
        return conf.getHeads();
    }

    /** The minibatch and the tokens' steps of the input; a packed input's parts are kept for the passes. */
    int[] read(INDArray in) {
        if (!conf.isPacked()) {
            return new int[] {(int) in.size(0), (int) in.size(2)};
        }
        if (sides == null) {
            sides = new TransformerBlockSides(conf);
        }
        return sides.read(in);
    }

    /** The tokens [mb, C, T] into rows1. */
    private void tokens(INDArray in, TransformerBlockBuffers b) {
        if (sides == null) {
            Sgemm.buffer(in).get(0, b.rows1, 0, b.rows * width());
        } else {
            sides.tokens(b.rows1);
        }
    }

    private TransformerBlockModulation modulation() {
        return sides == null ? null : sides.modulation;
    }

    /** A conditioned block's norm output (rows2) scaled and shifted for the branch (0 attention: first the vectors). */
    private void modulate(TransformerBlockBuffers b, int branch) {
        if (modulation() != null) {
            if (branch == 0) {
                sides.modulate(b.mb, b.length, p);
            }
            modulation().modulate(b.rows2, b.rows, branch);
        }
    }

    /** out = residual + mask (rows1 + bias), times the branch's gate in a conditioned block. */
    private void residual(
            float[] residual, float[] bias, int maskAt, float[] out, TransformerBlockBuffers b, int branch) {
        if (modulation() != null) {
            modulation().gatedResidual(residual, b.rows1, bias, masks, maskAt, out, b.rows, branch);
        } else {
            TransformerBlockMath.residual(residual, b.rows1, bias, masks, maskAt, out, b.rows, width(), b.local);
        }
    }

    /** A conditioned block's gate gradient from the output's; rows1 (dOut times the mask) times the gate. */
    private void gateBackward(float[] dOut, TransformerBlockBuffers b, int branch) {
        if (modulation() != null) {
            modulation().gateBackward(dOut, b.rows1, b.rows, branch);
        }
    }

    /** A conditioned block's shift and scale gradients from rows1 (the modulated norm's), which becomes the norm's. */
    private void modulateBackward(TransformerBlockBuffers b, float[] xhat, String gain, String bias, int branch) {
        if (modulation() != null) {
            modulation().modulateBackward(b.rows1, xhat, vector(gain), vector(bias), b.rows, branch);
        }
    }

    /** Where the attention's output goes: the buffers' region, or with recompute this block's own. */
    private Region attended(TransformerBlockBuffers b) {
        if (!conf.isRecompute()) {
            return b.attended;
        }
        if (keptAttended == null || keptRows != b.rows) {
            if (keptAttended != null) {
                keptAttended.free();
            }
            keptAttended = Region.allocate((long) b.rows * width());
            keptRows = b.rows;
        }
        return keptAttended;
    }

    /**
     * The forward pass into the buffers; the output rows end in rows2. {@code attentionKept}: the attention's output
     * of this input is already in {@link #keptAttended} (the backward pass of a recomputing block), and the pass stops
     * where what the backward pass reads is computed.
     */
    void forward(INDArray in, TransformerBlockBuffers b, boolean attentionKept) {
        int c = width();
        int f = hidden();
        int n = b.rows;
        int nc = n * c;
        tokens(in, b);
        TransformerBlockMath.toRows(b.rows1, b.x, b.mb, c, b.length);
        TransformerBlockMath.layerNorm(
                b.x,
                b.xhat1,
                b.rstd1,
                b.rows2,
                vector(NORM1_GAIN),
                vector(NORM1_BIAS),
                n,
                c,
                TransformerBlock.EPSILON,
                b.local[0]);
        modulate(b, 0);
        b.h1.write(b.rows2, nc);
        TransformerBlockQkv.forward(b, width(), p);
        Region attended = attended(b);
        if (!attentionKept) {
            TransformerBlockAttention.forward(b, attended, c, heads(), conf.isCausal());
        }
        Sgemm.multiply(false, false, n, c, c, 1, attended.pointer, 0, c, ptr(OUT_WEIGHTS), 0, c, 0, b.dm.pointer, 0, c);
        b.dm.read(b.rows1, nc);
        residual(b.x, vector(OUT_BIAS), 0, b.r1, b, 0);
        float[] r = sides == null ? b.r1 : sides.crossAttention(b.r1, b.mb, b.length, p, masks, b.local);
        TransformerBlockMath.layerNorm(
                r,
                b.xhat2,
                b.rstd2,
                b.rows2,
                vector(NORM2_GAIN),
                vector(NORM2_BIAS),
                n,
                c,
                TransformerBlock.EPSILON,
                b.local[0]);
        modulate(b, 1);
        b.h2.write(b.rows2, nc);
        // W1 is [C, F] column-major: row-major [F, C], used transposed
        Sgemm.multiply(false, true, n, f, c, 1, b.h2.pointer, 0, c, ptr(MLP1_WEIGHTS), 0, c, 0, b.u.pointer, 0, f);
        TransformerBlockGelu.forward(b, vector(MLP1_BIAS), f);
        if (attentionKept && modulation() == null) {
            // the backward pass needs z and the GELU's slope, not the block's output (a gate's gradient needs it)
            return;
        }
        Sgemm.multiply(false, true, n, c, f, 1, b.z.pointer, 0, f, ptr(MLP2_WEIGHTS), 0, f, 0, b.dm.pointer, 0, c);
        b.dm.read(b.rows1, nc);
        residual(r, vector(MLP2_BIAS), nc, b.rows2, b, 1);
    }

    /** The backward pass; the tokens' gradient ends in dr1; returns the condition's and the context's (or nulls). */
    float[][] backward(INDArray eps, TransformerBlockBuffers b) {
        int c = width();
        int f = hidden();
        int n = b.rows;
        int nc = n * c;
        float[] cs = new float[Math.max(c, f)];
        float[] cs2 = new float[c];
        TransformerBlockCrossAttention cross = sides == null ? null : sides.cross;
        Sgemm.buffer(eps).get(0, b.rows1, 0, nc);
        TransformerBlockMath.toRows(b.rows1, b.dy, b.mb, c, b.length);
        // MLP branch: y = r1 + mask2 (z W2 + b2)
        TransformerBlockMath.masked(b.dy, masks, nc, b.rows1, nc);
        if (modulation() != null) {
            modulation().beginBackward();
        }
        gateBackward(b.dy, b, 1);
        b.dm.write(b.rows1, nc);
        TransformerBlockMath.columnSums(b.rows1, n, c, cs, b.local[0]);
        setGradient(MLP2_BIAS, cs, c);
        Sgemm.multiply(true, false, c, f, n, 1, b.dm.pointer, 0, c, b.z.pointer, 0, f, 0, gptr(MLP2_WEIGHTS), 0, f);
        Sgemm.multiply(false, false, n, f, c, 1, b.dm.pointer, 0, c, ptr(MLP2_WEIGHTS), 0, f, 0, b.dz.pointer, 0, f);
        TransformerBlockGelu.backward(b, f, cs);
        setGradient(MLP1_BIAS, cs, f);
        Sgemm.multiply(true, false, f, c, n, 1, b.dz.pointer, 0, f, b.h2.pointer, 0, c, 0, gptr(MLP1_WEIGHTS), 0, c);
        Sgemm.multiply(false, false, n, c, f, 1, b.dz.pointer, 0, f, ptr(MLP1_WEIGHTS), 0, c, 0, b.dh.pointer, 0, c);
        // dr1 = dy + norm2's backward
        b.dh.read(b.rows1, nc);
        modulateBackward(b, b.xhat2, NORM2_GAIN, NORM2_BIAS, 1);
        TransformerBlockMath.layerNormBackward(
                b.rows1, b.xhat2, b.rstd2, vector(NORM2_GAIN), b.dy, b.dr1, cs, cs2, b.rows2, n, c, b.local);
        setGradient(NORM2_GAIN, cs, c);
        setGradient(NORM2_BIAS, cs2, c);
        float[] dContext = cross == null ? null : cross.backward(b.dr1, p, masks, 2 * nc, b.local);
        // attention branch: r1 = x + mask1 (attended Wo + bo)
        TransformerBlockMath.masked(b.dr1, masks, 0, b.rows1, nc);
        gateBackward(b.dr1, b, 0);
        b.dm.write(b.rows1, nc);
        TransformerBlockMath.columnSums(b.rows1, n, c, cs, b.local[0]);
        setGradient(OUT_BIAS, cs, c);
        Sgemm.multiply(
                true, false, c, c, n, 1, attended(b).pointer, 0, c, b.dm.pointer, 0, c, 0, gptr(OUT_WEIGHTS), 0, c);
        Sgemm.multiply(false, true, n, c, c, 1, b.dm.pointer, 0, c, ptr(OUT_WEIGHTS), 0, c, 0, b.datt.pointer, 0, c);
        TransformerBlockAttention.backward(b, c, heads(), conf.isCausal());
        TransformerBlockQkv.backward(b, width(), p);
        // dx = dr1 + norm1's backward, in dr1
        b.dh.read(b.rows1, nc);
        modulateBackward(b, b.xhat1, NORM1_GAIN, NORM1_BIAS, 0);
        TransformerBlockMath.layerNormBackward(
                b.rows1, b.xhat1, b.rstd1, vector(NORM1_GAIN), b.dr1, b.dr1, cs, cs2, b.rows2, n, c, b.local);
        setGradient(NORM1_GAIN, cs, c);
        setGradient(NORM1_BIAS, cs2, c);
        return new float[][] {modulation() == null ? null : modulation().backward(p), dContext};
    }

    private float[] vector(String key) {
        return p.vector(key);
    }

    private void setGradient(String key, float[] values, int n) {
        p.setGradient(key, values, n);
    }

    private FloatPointer ptr(String key) {
        return p.pointer(key);
    }

    private FloatPointer gptr(String key) {
        return p.gradientPointer(key);
    }
}
