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
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.QKV_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.QKV_WEIGHTS;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.bytedeco.javacpp.FloatPointer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.BaseLayer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.shape.Shape;
import org.traindeck.engine.model.kernels.KernelParameters;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers.Region;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/**
 * The fused transformer block's CPU kernel: one transpose in ([mb, C, T] to rows [mb T, C]), products as direct
 * {@link Sgemm} calls on the parameters' and buffers' native memory (attention per example and head in
 * {@link TransformerBlockAttention}), the elementwise work as Java loops on heap rows ({@link TransformerBlockMath}),
 * one transpose out. The forward
 * pass keeps what the backward pass needs, so nothing runs twice; with recompute it keeps only the input, the
 * attention's output and the dropout masks, the buffers are shared by the thread's blocks and hold one example's
 * attention probabilities (the backward pass computes them again per example).
 */
public class TransformerBlockLayer extends BaseLayer<TransformerBlock> {

    private static final ThreadLocal<Map<String, TransformerBlockBuffers>> SHARED =
            ThreadLocal.withInitial(HashMap::new);

    private TransformerBlockBuffers own;
    /**
     * With recompute, the attention's output [rows, C] of the last forward pass, kept as well as the input: the
     * backward pass then computes again only what grows linearly with the length (norms, projections, MLP) and the
     * probabilities once per example, not the attention's forward pass a second time.
     */
    private Region keptAttended;

    private int keptRows;
    private final TransformerBlockDropout dropout = new TransformerBlockDropout();
    /** This step's dropout masks, null without dropout (or outside training). */
    private float[] masks;

    /** A conditioned or cross-attending block's side inputs and their parts; null for a plain block. */
    private TransformerBlockSides sides;

    private final KernelParameters p = new KernelParameters();

    public TransformerBlockLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    @Override
    public boolean isPretrainLayer() {
        return false;
    }

    @Override
    public void fit(INDArray input, LayerWorkspaceMgr workspaceMgr) {
        throw new UnsupportedOperationException("a transformer block is trained inside its network");
    }

    @Override
    public Type type() {
        return Type.RECURRENT;
    }

    private int width() {
        return (int) layerConf().getWidth();
    }

    private int hidden() {
        return (int) layerConf().getHidden();
    }

    private int heads() {
        return layerConf().getHeads();
    }

    private TransformerBlockBuffers buffers(int mb, int length) {
        if (layerConf().isRecompute()) {
            String key = mb + "x" + length + "x" + width() + "x" + hidden() + "x" + heads();
            Map<String, TransformerBlockBuffers> shared = SHARED.get();
            TransformerBlockBuffers b = shared.get(key);
            if (b == null) {
                shared.values().forEach(TransformerBlockBuffers::free);
                shared.clear();
                b = new TransformerBlockBuffers(mb, length, width(), hidden(), heads(), true);
                shared.put(key, b);
            }
            return b;
        }
        if (own == null || !own.fits(mb, length)) {
            if (own != null) {
                own.free();
            }
            own = new TransformerBlockBuffers(mb, length, width(), hidden(), heads(), false);
        }
        return own;
    }

    private void bindParameters() {
        p.bindParameters(paramsFlattened, TransformerBlockParams.keys(layerConf()), params);
    }

    private void bindGradients() {
        p.bindGradients(gradientsFlattened, TransformerBlockParams.keys(layerConf()), gradientViews);
    }

    private static INDArray dense(INDArray a, LayerWorkspaceMgr mgr, ArrayType type) {
        return a.ordering() == 'c' && a.elementWiseStride() == 1 && Shape.hasDefaultStridesForShape(a)
                ? a
                : mgr.dup(type, a, 'c');
    }

    private void checkInput(INDArray in) {
        if (in.dataType() != DataType.FLOAT) {
            throw new IllegalStateException("TransformerBlock \"" + layerConf().getLayerName()
                    + "\": its CPU kernel computes in float32" + " but the network's data type is " + in.dataType()
                    + ": use \"kernel\": \"dl4j\" for other data types");
        }
        if (layerConf().isPacked() ? in.rank() != 2 : in.rank() != 3 || in.size(1) != width()) {
            throw new IllegalStateException("TransformerBlock \"" + layerConf().getLayerName()
                    + "\": expects "
                    + (layerConf().isPacked()
                            ? "its packed inputs [minibatch, size]"
                            : "[minibatch, " + width() + ", time]")
                    + ", got " + Arrays.toString(in.shape()));
        }
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
        assertInputSet(false);
        checkInput(input);
        INDArray in = dense(input, workspaceMgr, ArrayType.FF_WORKING_MEM);
        int[] sizes = read(in);
        int mb = sizes[0];
        int t = sizes[1];
        bindParameters();
        TransformerBlockBuffers b = buffers(mb, t);
        masks = training && layerConf().getDropout() > 0
                ? dropout.draw(
                        layerConf().hasContext() ? 3 : 2,
                        b.rows,
                        width(),
                        layerConf().getDropout())
                : null;
        forward(in, b, false);
        INDArray out = workspaceMgr.createUninitialized(
                ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, width(), t}, 'c');
        TransformerBlockMath.fromRows(b.rows2, b.rows1, mb, width(), t);
        Sgemm.buffer(out).put(0, b.rows1, 0, b.rows * width());
        return out;
    }

    /** The minibatch and the tokens' steps of the input; a packed input's parts are kept for the passes. */
    private int[] read(INDArray in) {
        if (!layerConf().isPacked()) {
            return new int[] {(int) in.size(0), (int) in.size(2)};
        }
        if (sides == null) {
            sides = new TransformerBlockSides(layerConf());
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
        if (!layerConf().isRecompute()) {
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
    private void forward(INDArray in, TransformerBlockBuffers b, boolean attentionKept) {
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
        qkvForward(b);
        Region attended = attended(b);
        if (!attentionKept) {
            TransformerBlockAttention.forward(
                    b, attended, c, heads(), layerConf().isCausal());
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

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
        assertInputSet(true);
        INDArray eps = dense(epsilon, workspaceMgr, ArrayType.BP_WORKING_MEM);
        int mb = (int) eps.size(0);
        int t = (int) eps.size(2);
        bindParameters();
        bindGradients();
        TransformerBlockBuffers b = buffers(mb, t);
        if (layerConf().isRecompute()) {
            INDArray in = dense(input, workspaceMgr, ArrayType.BP_WORKING_MEM);
            read(in);
            forward(in, b, true);
        }
        float[][] sideGradients = backward(eps, b);
        TransformerBlockMath.fromRows(b.dr1, b.rows1, mb, width(), t);
        INDArray dx;
        if (sides == null) {
            dx = workspaceMgr.createUninitialized(
                    ArrayType.ACTIVATION_GRAD, DataType.FLOAT, new long[] {mb, width(), t}, 'c');
            Sgemm.buffer(dx).put(0, b.rows1, 0, b.rows * width());
        } else {
            float[] grads = sides.gradient(b.rows1, sideGradients[0], sideGradients[1]);
            dx = workspaceMgr.createUninitialized(
                    ArrayType.ACTIVATION_GRAD, DataType.FLOAT, new long[] {mb, sides.size()}, 'c');
            Sgemm.buffer(dx).put(0, grads, 0, mb * sides.size());
        }
        Gradient g = new DefaultGradient(gradientsFlattened);
        for (String key : TransformerBlockParams.keys(layerConf())) {
            g.gradientForVariable().put(key, gradientViews.get(key));
        }
        return new Pair<>(g, dx);
    }

    /** The backward pass; the tokens' gradient ends in dr1; returns the condition's and the context's (or nulls). */
    private float[][] backward(INDArray eps, TransformerBlockBuffers b) {
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
        TransformerBlockAttention.backward(b, c, heads(), layerConf().isCausal());
        qkvBackward(b);
        // dx = dr1 + norm1's backward, in dr1
        b.dh.read(b.rows1, nc);
        modulateBackward(b, b.xhat1, NORM1_GAIN, NORM1_BIAS, 0);
        TransformerBlockMath.layerNormBackward(
                b.rows1, b.xhat1, b.rstd1, vector(NORM1_GAIN), b.dr1, b.dr1, cs, cs2, b.rows2, n, c, b.local);
        setGradient(NORM1_GAIN, cs, c);
        setGradient(NORM1_BIAS, cs2, c);
        return new float[][] {modulation() == null ? null : modulation().backward(p), dContext};
    }

    /** The attention's input projection backward: bqkv's and Wqkv's gradients, and h1's into dh. */
    private void qkvBackward(TransformerBlockBuffers b) {
        int c = width();
        int n = b.rows;
        Sgemm.columnSums(n, 3 * c, b.dqkv.pointer, 0, 3 * c, b.ones.pointer, gptr(QKV_BIAS), 0);
        Sgemm.multiply(
                true,
                false,
                c,
                3 * c,
                n,
                1,
                b.h1.pointer,
                0,
                c,
                b.dqkv.pointer,
                0,
                3 * c,
                0,
                gptr(QKV_WEIGHTS),
                0,
                3 * c);
        Sgemm.multiply(
                false,
                true,
                n,
                c,
                3 * c,
                1,
                b.dqkv.pointer,
                0,
                3 * c,
                ptr(QKV_WEIGHTS),
                0,
                3 * c,
                0,
                b.dh.pointer,
                0,
                c);
    }

    /** qkv = h1 Wqkv + bqkv: the bias as a product with a column of ones, then the projection added to it. */
    private void qkvForward(TransformerBlockBuffers b) {
        int c = width();
        int n = b.rows;
        Sgemm.multiply(
                false,
                false,
                n,
                3 * c,
                1,
                1,
                b.ones.pointer,
                0,
                1,
                ptr(QKV_BIAS),
                0,
                3 * c,
                0,
                b.qkv.pointer,
                0,
                3 * c);
        Sgemm.multiply(
                false,
                false,
                n,
                3 * c,
                c,
                1,
                b.h1.pointer,
                0,
                c,
                ptr(QKV_WEIGHTS),
                0,
                3 * c,
                1,
                b.qkv.pointer,
                0,
                3 * c);
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
