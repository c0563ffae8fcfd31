package org.traindeck.engine.model.kernels;

import static org.traindeck.engine.model.kernels.TransformerBlockParams.MLP1_BIAS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.MLP1_WEIGHTS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.MLP2_BIAS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.MLP2_WEIGHTS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.NORM1_BIAS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.NORM1_GAIN;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.NORM2_BIAS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.NORM2_GAIN;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.OUT_BIAS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.OUT_WEIGHTS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.QKV_BIAS;
import static org.traindeck.engine.model.kernels.TransformerBlockParams.QKV_WEIGHTS;

import java.nio.FloatBuffer;
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
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.random.impl.BernoulliDistribution;
import org.nd4j.linalg.api.shape.Shape;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers.Region;

/**
 * The fused transformer block's CPU kernel: one transpose in ([mb, C, T] to rows [mb T, C]), products as direct
 * {@link Sgemm} calls on the parameters' and buffers' memory (attention per example and head, reading each head's
 * columns in place), the elementwise work as Java loops ({@link TransformerBlockMath}), one transpose out. The forward
 * pass keeps what the backward pass needs, so nothing runs twice; with recompute it keeps only the input (and the
 * dropout masks) and the buffers are shared by the thread's blocks.
 */
public class TransformerBlockLayer extends BaseLayer<TransformerBlock> {

    private static final ThreadLocal<Map<String, TransformerBlockBuffers>> SHARED = ThreadLocal.withInitial(HashMap::new);

    private TransformerBlockBuffers own;
    private INDArray maskArrays;
    private Region masks;
    private boolean masked;
    private INDArray viewsOf;
    private INDArray gradientsOf;
    private final Map<String, Region> paramRegions = new HashMap<>();
    private final Map<String, Region> gradientRegions = new HashMap<>();

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
                b = new TransformerBlockBuffers(mb, length, width(), hidden(), heads());
                shared.put(key, b);
            }
            return b;
        }
        if (own == null || !own.fits(mb, length)) {
            if (own != null) {
                own.free();
            }
            own = new TransformerBlockBuffers(mb, length, width(), hidden(), heads());
        }
        return own;
    }

    private void bindParameters() {
        if (viewsOf != paramsFlattened) {
            paramRegions.clear();
            for (String key : TransformerBlockParams.KEYS) {
                paramRegions.put(key, Region.of(getParam(key)));
            }
            viewsOf = paramsFlattened;
        }
    }

    private void bindGradients() {
        if (gradientsOf != gradientsFlattened) {
            gradientRegions.clear();
            for (String key : TransformerBlockParams.KEYS) {
                gradientRegions.put(key, Region.of(gradientViews.get(key)));
            }
            gradientsOf = gradientsFlattened;
        }
    }

    private static INDArray dense(INDArray a, LayerWorkspaceMgr mgr, ArrayType type) {
        return a.ordering() == 'c' && a.elementWiseStride() == 1 && Shape.hasDefaultStridesForShape(a) ? a : mgr.dup(type, a, 'c');
    }

    private void checkInput(INDArray in) {
        if (in.dataType() != DataType.FLOAT) {
            throw new IllegalStateException("TransformerBlock \"" + layerConf().getLayerName() + "\": its CPU kernel computes in float32"
                    + " but the network's data type is " + in.dataType() + ": use \"kernel\": \"dl4j\" for other data types");
        }
        if (in.rank() != 3 || in.size(1) != width()) {
            throw new IllegalStateException("TransformerBlock \"" + layerConf().getLayerName() + "\": expects [minibatch, " + width()
                    + ", time], got " + Arrays.toString(in.shape()));
        }
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
        assertInputSet(false);
        checkInput(input);
        INDArray in = dense(input, workspaceMgr, ArrayType.FF_WORKING_MEM);
        int mb = (int) in.size(0);
        int t = (int) in.size(2);
        bindParameters();
        TransformerBlockBuffers b = buffers(mb, t);
        masked = training && layerConf().getDropout() > 0;
        if (masked) {
            drawMasks(b.rows);
        }
        forward(Region.of(in), b);
        INDArray out = workspaceMgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, width(), t}, 'c');
        TransformerBlockMath.fromRows(b.out.buffer, Region.of(out).buffer, 0, mb, width(), t);
        return out;
    }

    /** Two inverted-dropout masks [rows, C] (values 0 or 1/keep) drawn from ND4J's RNG, so the network's seed governs them. */
    private void drawMasks(int rows) {
        long n = 2L * rows * width();
        if (maskArrays == null || maskArrays.length() != n) {
            try (MemoryWorkspace ignored = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
                maskArrays = Nd4j.createUninitializedDetached(DataType.FLOAT, n);
            }
            masks = Region.of(maskArrays);
        }
        double keep = 1 - layerConf().getDropout();
        Nd4j.getExecutioner().exec(new BernoulliDistribution(maskArrays, keep), Nd4j.getRandom());
        FloatBuffer m = masks.buffer;
        float scale = (float) (1 / keep);
        for (int i = 0; i < n; i++) {
            m.put(i, m.get(i) * scale);
        }
    }

    private FloatBuffer mask(int which, int rows) {
        if (!masked) {
            return null;
        }
        int n = rows * width();
        return masks.buffer.duplicate().position(which * n).limit((which + 1) * n).slice();
    }

    private void forward(Region in, TransformerBlockBuffers b) {
        int c = width();
        int f = hidden();
        int n = b.rows;
        TransformerBlockMath.toRows(in.buffer, 0, b.x.buffer, b.mb, c, b.length);
        TransformerBlockMath.layerNorm(b.x.buffer, b.xhat1.buffer, b.rstd1.buffer, b.h1.buffer, p(NORM1_GAIN), p(NORM1_BIAS), n, c,
                TransformerBlock.EPSILON);
        Sgemm.multiply(false, false, n, 3 * c, c, 1, b.h1.pointer, 0, c, ptr(QKV_WEIGHTS), 0, 3 * c, 0, b.qkv.pointer, 0, 3 * c);
        TransformerBlockMath.addBias(b.qkv.buffer, p(QKV_BIAS), 0, n, 3 * c);
        attention(b);
        // the attention's projection goes to dm, free until the backward pass
        Sgemm.multiply(false, false, n, c, c, 1, b.attended.pointer, 0, c, ptr(OUT_WEIGHTS), 0, c, 0, b.dm.pointer, 0, c);
        TransformerBlockMath.residual(b.x.buffer, b.dm.buffer, p(OUT_BIAS), 0, mask(0, n), b.r1.buffer, n, c);
        TransformerBlockMath.layerNorm(b.r1.buffer, b.xhat2.buffer, b.rstd2.buffer, b.h2.buffer, p(NORM2_GAIN), p(NORM2_BIAS), n, c,
                TransformerBlock.EPSILON);
        // W1 is [C, F] column-major: row-major [F, C], used transposed
        Sgemm.multiply(false, true, n, f, c, 1, b.h2.pointer, 0, c, ptr(MLP1_WEIGHTS), 0, c, 0, b.u.pointer, 0, f);
        TransformerBlockMath.biasGelu(b.u.buffer, p(MLP1_BIAS), 0, b.sigmoid.buffer, b.z.buffer, n, f);
        Sgemm.multiply(false, true, n, c, f, 1, b.z.pointer, 0, f, ptr(MLP2_WEIGHTS), 0, f, 0, b.dm.pointer, 0, c);
        TransformerBlockMath.residual(b.r1.buffer, b.dm.buffer, p(MLP2_BIAS), 0, mask(1, n), b.out.buffer, n, c);
    }

    /** Per example and head: P = softmax(Q K^T / sqrt(d)), O = P V, each head's columns read and written in place. */
    private void attention(TransformerBlockBuffers b) {
        int c = width();
        int h = heads();
        int d = c / h;
        int t = b.length;
        float scale = (float) (1 / Math.sqrt(d));
        boolean causal = layerConf().isCausal();
        FloatPointer qkv = b.qkv.pointer;
        for (int e = 0; e < b.mb; e++) {
            long rowsAt = (long) e * t;
            for (int head = 0; head < h; head++) {
                long q = rowsAt * 3 * c + (long) head * d;
                long pAt = ((long) e * h + head) * t * t;
                Sgemm.multiply(false, true, t, t, d, scale, qkv, q, 3 * c, qkv, q + c, 3 * c, 0, b.probabilities.pointer, pAt, t);
                TransformerBlockMath.softmax(b.probabilities.buffer, (int) pAt, t, causal);
                Sgemm.multiply(false, false, t, d, t, 1, b.probabilities.pointer, pAt, t, qkv, q + 2L * c, 3 * c, 0,
                        b.attended.pointer, rowsAt * c + (long) head * d, c);
            }
        }
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
            forward(Region.of(dense(input, workspaceMgr, ArrayType.BP_WORKING_MEM)), b);
        }
        backward(Region.of(eps), b);
        INDArray dx = workspaceMgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, new long[] {mb, width(), t}, 'c');
        TransformerBlockMath.fromRows(b.dr1.buffer, Region.of(dx).buffer, 0, mb, width(), t);
        Gradient g = new DefaultGradient(gradientsFlattened);
        for (String key : TransformerBlockParams.KEYS) {
            g.gradientForVariable().put(key, gradientViews.get(key));
        }
        return new Pair<>(g, dx);
    }

    private void backward(Region eps, TransformerBlockBuffers b) {
        int c = width();
        int f = hidden();
        int n = b.rows;
        TransformerBlockMath.toRows(eps.buffer, 0, b.dy.buffer, b.mb, c, b.length);
        // MLP branch: y = r1 + mask2 (z W2 + b2)
        TransformerBlockMath.masked(b.dy.buffer, mask(1, n), b.dm.buffer, n * c);
        TransformerBlockMath.columnSums(b.dm.buffer, n, c, g(MLP2_BIAS), 0);
        Sgemm.multiply(true, false, c, f, n, 1, b.dm.pointer, 0, c, b.z.pointer, 0, f, 0, gptr(MLP2_WEIGHTS), 0, f);
        Sgemm.multiply(false, false, n, f, c, 1, b.dm.pointer, 0, c, ptr(MLP2_WEIGHTS), 0, f, 0, b.dz.pointer, 0, f);
        TransformerBlockMath.geluBackward(b.dz.buffer, b.u.buffer, b.sigmoid.buffer, n * f);
        TransformerBlockMath.columnSums(b.dz.buffer, n, f, g(MLP1_BIAS), 0);
        Sgemm.multiply(true, false, f, c, n, 1, b.dz.pointer, 0, f, b.h2.pointer, 0, c, 0, gptr(MLP1_WEIGHTS), 0, c);
        Sgemm.multiply(false, false, n, c, f, 1, b.dz.pointer, 0, f, ptr(MLP1_WEIGHTS), 0, c, 0, b.dh.pointer, 0, c);
        // dr1 = dy + norm2's backward
        TransformerBlockMath.masked(b.dy.buffer, null, b.dr1.buffer, n * c);
        TransformerBlockMath.layerNormBackward(b.dh.buffer, b.xhat2.buffer, b.rstd2.buffer, p(NORM2_GAIN), b.dr1.buffer,
                g(NORM2_GAIN), 0, g(NORM2_BIAS), 0, n, c);
        // attention branch: r1 = x + mask1 (attended Wo + bo)
        TransformerBlockMath.masked(b.dr1.buffer, mask(0, n), b.dm.buffer, n * c);
        TransformerBlockMath.columnSums(b.dm.buffer, n, c, g(OUT_BIAS), 0);
        Sgemm.multiply(true, false, c, c, n, 1, b.attended.pointer, 0, c, b.dm.pointer, 0, c, 0, gptr(OUT_WEIGHTS), 0, c);
        Sgemm.multiply(false, true, n, c, c, 1, b.dm.pointer, 0, c, ptr(OUT_WEIGHTS), 0, c, 0, b.datt.pointer, 0, c);
        attentionBackward(b);
        TransformerBlockMath.columnSums(b.dqkv.buffer, n, 3 * c, g(QKV_BIAS), 0);
        Sgemm.multiply(true, false, c, 3 * c, n, 1, b.h1.pointer, 0, c, b.dqkv.pointer, 0, 3 * c, 0, gptr(QKV_WEIGHTS), 0, 3 * c);
        Sgemm.multiply(false, true, n, c, 3 * c, 1, b.dqkv.pointer, 0, 3 * c, ptr(QKV_WEIGHTS), 0, 3 * c, 0, b.dh.pointer, 0, c);
        // dx = dr1 + norm1's backward, in dr1
        TransformerBlockMath.layerNormBackward(b.dh.buffer, b.xhat1.buffer, b.rstd1.buffer, p(NORM1_GAIN), b.dr1.buffer,
                g(NORM1_GAIN), 0, g(NORM1_BIAS), 0, n, c);
    }

    private void attentionBackward(TransformerBlockBuffers b) {
        int c = width();
        int h = heads();
        int d = c / h;
        int t = b.length;
        float scale = (float) (1 / Math.sqrt(d));
        boolean causal = layerConf().isCausal();
        FloatPointer qkv = b.qkv.pointer;
        FloatPointer dqkv = b.dqkv.pointer;
        FloatPointer ds = b.dscores.pointer;
        for (int e = 0; e < b.mb; e++) {
            long rowsAt = (long) e * t;
            for (int head = 0; head < h; head++) {
                long q = rowsAt * 3 * c + (long) head * d;
                long o = rowsAt * c + (long) head * d;
                long pAt = ((long) e * h + head) * t * t;
                // dP = dO V^T; dV = P^T dO
                Sgemm.multiply(false, true, t, t, d, 1, b.datt.pointer, o, c, qkv, q + 2L * c, 3 * c, 0, ds, 0, t);
                Sgemm.multiply(true, false, t, d, t, 1, b.probabilities.pointer, pAt, t, b.datt.pointer, o, c, 0, dqkv, q + 2L * c, 3 * c);
                TransformerBlockMath.softmaxBackward(b.probabilities.buffer, (int) pAt, b.dscores.buffer, t, scale, causal);
                // dQ = dS K; dK = dS^T Q
                Sgemm.multiply(false, false, t, d, t, 1, ds, 0, t, qkv, q + c, 3 * c, 0, dqkv, q, 3 * c);
                Sgemm.multiply(true, false, t, d, t, 1, ds, 0, t, qkv, q, 3 * c, 0, dqkv, q + c, 3 * c);
            }
        }
    }

    private FloatBuffer p(String key) {
        return paramRegions.get(key).buffer;
    }

    private FloatPointer ptr(String key) {
        return paramRegions.get(key).pointer;
    }

    private FloatBuffer g(String key) {
        return gradientRegions.get(key).buffer;
    }

    private FloatPointer gptr(String key) {
        return gradientRegions.get(key).pointer;
    }
}
