package org.traindeck.engine.model.kernels.embedding;

import static org.traindeck.engine.model.kernels.embedding.ConditionedUnpatch3DParams.BIAS;
import static org.traindeck.engine.model.kernels.embedding.ConditionedUnpatch3DParams.MODULATION_BIAS;
import static org.traindeck.engine.model.kernels.embedding.ConditionedUnpatch3DParams.MODULATION_WEIGHTS;
import static org.traindeck.engine.model.kernels.embedding.ConditionedUnpatch3DParams.WEIGHTS;

import java.util.Arrays;
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
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link ConditionedUnpatch3D} at run time: the packed input split (per example T, the tokens [F, T], the condition [C]: the
 * transformer block's packing), the tokens as rows
 * [mb·T, F] through the modulated norm ({@link FinalLayerNorm}), one {@link Sgemm} product with W, the bias added, each
 * row put in place as its patch ({@link VolumePatches}). The normed rows stay in native memory for dW = hᵀ dY.
 */
public class ConditionedUnpatch3DLayer extends BaseLayer<ConditionedUnpatch3D> {

    private FinalLayerNorm norm;
    private Packing layout;
    private VolumePatches volumes;
    private HostFloats.Native normed;
    private HostFloats.Native projected;
    private HostFloats.Native normedGrad;
    private float[] packed = new float[0];
    private float[] tokens = new float[0];
    private float[] rows = new float[0];
    private float[] patches = new float[0];
    private float[] volume = new float[0];

    public ConditionedUnpatch3DLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    @Override
    public boolean isPretrainLayer() {
        return false;
    }

    @Override
    public void fit(INDArray input, LayerWorkspaceMgr workspaceMgr) {
        throw new UnsupportedOperationException("a conditioned unpatch3d is trained inside its network");
    }

    @Override
    public Type type() {
        return Type.CONVOLUTIONAL3D;
    }

    private String who() {
        return "unpatch3d \"" + layerConf().getLayerName() + "\"";
    }

    /** Splits the packed input; returns the tokens as rows [mb·T, F] in {@code rows}. */
    private void read() {
        ConditionedUnpatch3D u = layerConf();
        int f = (int) u.features();
        if (input.dataType() != DataType.FLOAT || input.rank() != 2) {
            throw new IllegalStateException(who() + ": takes its packed float32 inputs [minibatch, size], got "
                    + input.dataType() + " " + Arrays.toString(input.shape()));
        }
        int mb = (int) input.size(0);
        int size = (int) input.size(1);
        packed = HostFloats.atLeast(packed, (long) mb * size);
        HostFloats.read(input, packed);
        layout = new Packing(mb, (int) u.tokens(), f, (int) u.conditionWidth(), size);
        if (size != 1 + f * u.tokens() + u.conditionWidth() || Math.round(packed[0]) != u.tokens()) {
            throw new IllegalStateException(who() + ": expects " + u.tokens() + " tokens of " + f + " features and a"
                    + " condition of " + u.conditionWidth() + " packed, got " + size + " floats an example");
        }
        int n = mb * layout.steps();
        tokens = HostFloats.atLeast(tokens, (long) n * f);
        rows = HostFloats.atLeast(rows, (long) n * f);
        layout.tokens(packed, tokens);
        VolumePatches.transpose(tokens, rows, mb, f, layout.steps());
        if (norm == null) {
            norm = new FinalLayerNorm(f, (int) u.conditionWidth());
        }
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        read();
        ConditionedUnpatch3D u = layerConf();
        int f = (int) u.features();
        int[] grid = u.grid();
        int s = u.patchSize();
        int mb = layout.mb();
        VolumePatches v = volumes = new VolumePatches(mb, (int) u.channels(), grid[0] * s, grid[1] * s, grid[2] * s, s);
        int n = mb * v.tokens();
        int length = v.rowLength();
        float[] h = patches = HostFloats.atLeast(patches, Math.max(v.rowValues(), (long) n * f));
        norm.forward(
                rows, layout.condition(packed), mb, v.tokens(), vector(MODULATION_WEIGHTS), vector(MODULATION_BIAS), h);
        normed = HostFloats.Native.fit(normed, (long) n * f);
        normed.buffer.put(0, h, 0, n * f);
        projected = HostFloats.Native.fit(projected, v.rowValues());
        Sgemm.multiply(
                false,
                false,
                n,
                length,
                f,
                1,
                normed.pointer,
                0,
                f,
                pointer(WEIGHTS),
                0,
                length,
                0,
                projected.pointer,
                0,
                length);
        projected.buffer.get(0, h, 0, n * length);
        float[] bias = vector(BIAS);
        for (int row = 0; row < n; row++) {
            int base = row * length;
            for (int j = 0; j < length; j++) {
                h[base + j] += bias[j];
            }
        }
        volume = HostFloats.atLeast(volume, v.volumeValues());
        v.place(h, volume);
        INDArray out = mgr.createUninitialized(
                ArrayType.ACTIVATIONS,
                DataType.FLOAT,
                new long[] {mb, v.channels(), v.depth(), v.height(), v.width()},
                'c');
        HostFloats.write(volume, out);
        return out;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        VolumePatches v = volumes;
        long[] want = v == null ? null : new long[] {v.examples(), v.channels(), v.depth(), v.height(), v.width()};
        if (want == null || !Arrays.equals(epsilon.shape(), want)) {
            throw new IllegalStateException(who() + ": backward pass without the forward pass of this batch");
        }
        int f = (int) layerConf().features();
        int n = v.examples() * v.tokens();
        int length = v.rowLength();
        HostFloats.read(epsilon, volume);
        float[] dy = patches;
        v.cut(volume, dy);
        biasGradient(dy, n, length);
        projected.buffer.put(0, dy, 0, n * length);
        weightGradient(n, f, length);
        return new Pair<>(modulationBackward(normedRowsGradient(n, f, length), n, f), inputGradient(mgr));
    }

    /** db = Σ over the patch rows of dY, written into b's gradient view. */
    private void biasGradient(float[] dy, int n, int length) {
        float[] db = new float[length];
        for (int row = 0; row < n; row++) {
            int base = row * length;
            for (int j = 0; j < length; j++) {
                db[j] += dy[base + j];
            }
        }
        HostFloats.write(db, gradientViews.get(BIAS));
    }

    /** dW = hᵀ dY, from the normed rows kept by the forward pass and dY in {@link #projected}. */
    private void weightGradient(int n, int f, int length) {
        INDArray dW = gradientViews.get(WEIGHTS);
        Sgemm.multiply(
                true,
                false,
                f,
                length,
                n,
                1,
                normed.pointer,
                0,
                f,
                projected.pointer,
                0,
                length,
                0,
                Sgemm.pointerTo(dW),
                0,
                length);
    }

    /** dh = dY Wᵀ, the normed rows' gradient [n, F]. */
    private float[] normedRowsGradient(int n, int f, int length) {
        normedGrad = HostFloats.Native.fit(normedGrad, (long) n * f);
        Sgemm.multiply(
                false,
                true,
                n,
                f,
                length,
                1,
                projected.pointer,
                0,
                length,
                pointer(WEIGHTS),
                0,
                length,
                0,
                normedGrad.pointer,
                0,
                f);
        float[] dh = new float[n * f];
        normedGrad.buffer.get(0, dh, 0, n * f);
        return dh;
    }

    /** The norm's backward pass: the rows' gradient into {@code rows}, Wm's and bm's written; the gradient made. */
    private Gradient modulationBackward(float[] dh, int n, int f) {
        INDArray dwmView = gradientViews.get(MODULATION_WEIGHTS);
        INDArray dbmView = gradientViews.get(MODULATION_BIAS);
        float[] dwm = new float[(int) dwmView.length()];
        float[] dbm = new float[(int) dbmView.length()];
        float[] dCondition = norm.backward(dh, vector(MODULATION_WEIGHTS), rows, dwm, dbm);
        HostFloats.write(dwm, dwmView);
        HostFloats.write(dbm, dbmView);
        VolumePatches.transpose(rows, tokens, layout.mb(), layout.steps(), f);
        packed = layout.gradient(tokens, dCondition);
        Gradient g = new DefaultGradient(gradientsFlattened);
        ConditionedUnpatch3DParams.KEYS.forEach(k -> g.gradientForVariable().put(k, gradientViews.get(k)));
        return g;
    }

    private INDArray inputGradient(LayerWorkspaceMgr mgr) {
        INDArray dx = mgr.createUninitialized(
                ArrayType.ACTIVATION_GRAD, DataType.FLOAT, new long[] {layout.mb(), layout.size()}, 'c');
        HostFloats.write(packed, dx);
        return dx;
    }

    /** Where the packed input [mb, size] keeps each example's tokens and condition, and the gradient packed alike. */
    private record Packing(int mb, int steps, int width, int conditionWidth, int size) {

        void tokens(float[] packed, float[] into) {
            int n = width * steps;
            for (int e = 0; e < mb; e++) {
                System.arraycopy(packed, e * size + 1, into, e * n, n);
            }
        }

        float[] condition(float[] packed) {
            float[] out = new float[mb * conditionWidth];
            for (int e = 0; e < mb; e++) {
                System.arraycopy(packed, e * size + 1 + width * steps, out, e * conditionWidth, conditionWidth);
            }
            return out;
        }

        /** The packed gradient: none for T, then the tokens' [mb, F, T] and the condition's [mb, C]. */
        float[] gradient(float[] tokens, float[] condition) {
            float[] out = new float[mb * size];
            int n = width * steps;
            for (int e = 0; e < mb; e++) {
                System.arraycopy(tokens, e * n, out, e * size + 1, n);
                System.arraycopy(condition, e * conditionWidth, out, e * size + 1 + n, conditionWidth);
            }
            return out;
        }
    }

    private float[] vector(String key) {
        INDArray p = getParam(key);
        float[] out = new float[(int) p.length()];
        HostFloats.read(p, out);
        return out;
    }

    private FloatPointer pointer(String key) {
        INDArray p = getParam(key);
        if (!Sgemm.isDenseRowMajor(p)) {
            throw new IllegalStateException(who() + ": " + key + " is not a dense row-major view");
        }
        return Sgemm.pointerTo(p);
    }
}
