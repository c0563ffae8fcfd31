package org.traindeck.engine.model.kernels.embedding;

import java.util.Arrays;
import org.bytedeco.javacpp.FloatPointer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.samediff.SameDiffLayer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.layers.Unpatch3D;

/**
 * The unpatch kernel at run time: per example one {@link Sgemm} product of the tokens [F, T] (read as they are, no
 * transposed copy: {@link VolumeTokenProducts}) with W, the bias added, and each row put in place as its patch of the
 * volumes [mb, C, D, H, W] ({@link VolumePatches}). The backward pass reads the layer's input again (dW = Σ x_e dY_e),
 * so nothing but the input is kept between the passes, with or without recompute; its buffers
 * ({@link VolumePatchBuffers}: the patches' product and the patches in work) are reused from batch to batch.
 */
public class Unpatch3DKernelLayer extends SameDiffLayer {

    private VolumePatchBuffers own;
    private VolumePatches layout;

    public Unpatch3DKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private Unpatch3D unpatch() {
        return (Unpatch3D) layerConf();
    }

    private VolumePatchBuffers buffers() {
        if (layerConf() instanceof Unpatch3DKernel k && k.isRecompute()) {
            return VolumePatchBuffers.shared();
        }
        if (own == null) {
            own = new VolumePatchBuffers();
        }
        return own;
    }

    /** The input tokens [mb, F, T] as the products read them: row-major and dense (a copy where they are not). */
    private INDArray tokens() {
        return Sgemm.dense(input);
    }

    /** DL4J's SameDiffLayer checks the shape and then drops the value. */
    @Override
    public void setParam(String key, INDArray val) {
        super.setParam(key, val);
        getParam(key).assign(val);
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        Unpatch3D u = unpatch();
        int f = (int) u.features();
        int n = (int) u.tokens();
        if (input.rank() != 3 || input.size(1) != f || input.size(2) != n) {
            throw new IllegalStateException("Unpatch3DKernel" + name() + ": expects [minibatch, " + f + ", " + n
                    + "], got " + Arrays.toString(input.shape()));
        }
        int[] grid = u.grid();
        int s = u.patchSize();
        VolumePatches v = layout =
                new VolumePatches((int) input.size(0), (int) u.channels(), grid[0] * s, grid[1] * s, grid[2] * s, s);
        VolumePatchBuffers b = buffers();
        int mb = v.examples();
        int length = v.rowLength();
        b.projected = HostFloats.Native.fit(b.projected, v.rowValues());
        VolumeTokenProducts.rows(v, f, Sgemm.pointerTo(tokens()), weights(), b.projected.pointer);
        float[] r = b.work = HostFloats.atLeast(b.work, v.rowValues());
        b.projected.buffer.get(0, r, 0, mb * n * length);
        float[] bias = b.bias = HostFloats.atLeast(b.bias, length);
        HostFloats.read(getParam(Unpatch3D.BIAS), bias);
        for (int row = 0; row < mb * n; row++) {
            int base = row * length;
            for (int j = 0; j < length; j++) {
                r[base + j] += bias[j];
            }
        }
        float[] volume = b.volume = HostFloats.atLeast(b.volume, v.volumeValues());
        v.place(r, volume);
        INDArray ret = mgr.createUninitialized(
                ArrayType.ACTIVATIONS,
                DataType.FLOAT,
                new long[] {mb, v.channels(), v.depth(), v.height(), v.width()},
                'c');
        HostFloats.write(volume, ret);
        return ret;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        VolumePatches v = layout;
        long[] want = v == null ? null : new long[] {v.examples(), v.channels(), v.depth(), v.height(), v.width()};
        if (want == null || !Arrays.equals(epsilon.shape(), want)) {
            throw new IllegalStateException(
                    "Unpatch3DKernel" + name() + ": backward pass without the forward pass of this batch");
        }
        int rowsCount = v.examples() * v.tokens();
        int length = v.rowLength();
        VolumePatchBuffers b = buffers();
        float[] volume = b.volume = HostFloats.atLeast(b.volume, v.volumeValues());
        HostFloats.read(epsilon, volume);
        float[] dy = b.work = HostFloats.atLeast(b.work, v.rowValues());
        v.cut(volume, dy);
        float[] bias = b.bias = HostFloats.atLeast(b.bias, length);
        Arrays.fill(bias, 0, length, 0f);
        for (int row = 0; row < rowsCount; row++) {
            int base = row * length;
            for (int j = 0; j < length; j++) {
                bias[j] += dy[base + j];
            }
        }
        b.projected = HostFloats.Native.fit(b.projected, v.rowValues());
        b.projected.buffer.put(0, dy, 0, rowsCount * length);
        FloatPointer x = Sgemm.pointerTo(tokens());
        Gradient ret = new DefaultGradient();
        ret.gradientForVariable().put(Unpatch3D.WEIGHTS, weightGradient(v, x, b));
        INDArray db = gradTable.get(Unpatch3D.BIAS);
        HostFloats.write(bias, db);
        ret.gradientForVariable().put(Unpatch3D.BIAS, db);
        return new Pair<>(ret, inputGradient(v, b, mgr));
    }

    /** dW = Σ_e x_e dRows_e, written straight into W's gradient view. */
    private INDArray weightGradient(VolumePatches v, FloatPointer x, VolumePatchBuffers b) {
        int f = (int) unpatch().features();
        INDArray dW = gradTable.get(Unpatch3D.WEIGHTS);
        if (!Sgemm.isDenseRowMajor(dW)) {
            throw new IllegalStateException(
                    "Unpatch3DKernel" + name() + ": W's gradient is not a dense row-major view");
        }
        VolumeTokenProducts.unpatchWeightGradient(v, f, x, b.projected.pointer, Sgemm.pointerTo(dW));
        return dW;
    }

    /** dx = W dRowsᵀ per example, written straight into the tokens' gradient [mb, F, T]. */
    private INDArray inputGradient(VolumePatches v, VolumePatchBuffers b, LayerWorkspaceMgr mgr) {
        int f = (int) unpatch().features();
        INDArray epsNext = mgr.createUninitialized(
                ArrayType.ACTIVATION_GRAD, DataType.FLOAT, new long[] {v.examples(), f, v.tokens()}, 'c');
        VolumeTokenProducts.tokensGradient(v, f, b.projected.pointer, weights(), Sgemm.pointerTo(epsNext));
        return epsNext;
    }

    private FloatPointer weights() {
        INDArray w = getParam(Unpatch3D.WEIGHTS);
        if (!Sgemm.isDenseRowMajor(w)) {
            throw new IllegalStateException("Unpatch3DKernel" + name() + ": W is not a dense row-major view");
        }
        return Sgemm.pointerTo(w);
    }

    private String name() {
        String n = layerConf().getLayerName();
        return n == null ? "" : " \"" + n + "\"";
    }
}
