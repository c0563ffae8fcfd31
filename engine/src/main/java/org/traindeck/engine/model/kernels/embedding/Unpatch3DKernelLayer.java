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
 * The unpatch kernel at run time: tokens [mb, F, T] as rows [mb·T, F], one {@link Sgemm} product with W, the bias
 * added, and each row put in place as its patch of the volumes [mb, C, D, H, W] ({@link VolumePatches}). The rows are
 * kept for the backward pass (dW = rowsᵀ dY), or with recompute made again there from the input; its buffers
 * ({@link VolumePatchBuffers}: the tokens in sequence, the patches in work) are reused from batch to batch.
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

    /** The input tokens [mb, F, T] as rows [mb·T, F], in b.rows (b.sequence and b.work are used on the way). */
    private void tokenRows(VolumePatches v, VolumePatchBuffers b) {
        int mb = v.examples();
        int f = (int) unpatch().features();
        int n = v.tokens();
        b.sequence = HostFloats.atLeast(b.sequence, (long) mb * f * n);
        HostFloats.read(input, b.sequence);
        b.work = HostFloats.atLeast(b.work, Math.max(v.rowValues(), (long) mb * n * f));
        VolumePatches.transpose(b.sequence, b.work, mb, f, n);
        b.rows = HostFloats.Native.fit(b.rows, (long) mb * n * f);
        b.rows.buffer.put(0, b.work, 0, mb * n * f);
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
        tokenRows(v, b);
        float[] r = b.work;
        b.projected = HostFloats.Native.fit(b.projected, v.rowValues());
        Sgemm.multiply(
                false,
                false,
                mb * n,
                length,
                f,
                1,
                b.rows.pointer,
                0,
                f,
                weights(),
                0,
                length,
                0,
                b.projected.pointer,
                0,
                length);
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
        if (b != own) {
            tokenRows(v, b);
        }
        float[] volume = b.volume = HostFloats.atLeast(b.volume, v.volumeValues());
        HostFloats.read(epsilon, volume);
        float[] dy = b.work;
        v.cut(volume, dy);
        float[] bias = b.bias = HostFloats.atLeast(b.bias, length);
        Arrays.fill(bias, 0, length, 0f);
        for (int row = 0; row < rowsCount; row++) {
            int base = row * length;
            for (int j = 0; j < length; j++) {
                bias[j] += dy[base + j];
            }
        }
        b.projected.buffer.put(0, dy, 0, rowsCount * length);
        Gradient ret = new DefaultGradient();
        ret.gradientForVariable().put(Unpatch3D.WEIGHTS, weightGradient(rowsCount, length, b));
        INDArray db = gradTable.get(Unpatch3D.BIAS);
        HostFloats.write(bias, db);
        ret.gradientForVariable().put(Unpatch3D.BIAS, db);
        return new Pair<>(ret, inputGradient(v, b, mgr));
    }

    /** dW = rowsᵀ dY, written straight into W's gradient view. */
    private INDArray weightGradient(int rowsCount, int length, VolumePatchBuffers b) {
        int f = (int) unpatch().features();
        INDArray dW = gradTable.get(Unpatch3D.WEIGHTS);
        if (!Sgemm.isDenseRowMajor(dW)) {
            throw new IllegalStateException(
                    "Unpatch3DKernel" + name() + ": W's gradient is not a dense row-major view");
        }
        Sgemm.multiply(
                true,
                false,
                f,
                length,
                rowsCount,
                1,
                b.rows.pointer,
                0,
                f,
                b.projected.pointer,
                0,
                length,
                0,
                Sgemm.pointerTo(dW),
                0,
                length);
        return dW;
    }

    /** d rows = dY Wᵀ, as tokens [mb, F, T]. */
    private INDArray inputGradient(VolumePatches v, VolumePatchBuffers b, LayerWorkspaceMgr mgr) {
        int f = (int) unpatch().features();
        int n = v.tokens();
        int mb = v.examples();
        int length = v.rowLength();
        b.rowsGrad = HostFloats.Native.fit(b.rowsGrad, (long) mb * n * f);
        Sgemm.multiply(
                false,
                true,
                mb * n,
                f,
                length,
                1,
                b.projected.pointer,
                0,
                length,
                weights(),
                0,
                length,
                0,
                b.rowsGrad.pointer,
                0,
                f);
        b.rowsGrad.buffer.get(0, b.work, 0, mb * n * f);
        float[] tokens = b.sequence = HostFloats.atLeast(b.sequence, (long) mb * f * n);
        VolumePatches.transpose(b.work, tokens, mb, n, f);
        INDArray epsNext =
                mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, new long[] {mb, f, n}, 'c');
        HostFloats.write(tokens, epsNext);
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
