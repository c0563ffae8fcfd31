package org.traindeck.engine.model.kernels.embedding;

import java.nio.FloatBuffer;
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
import org.traindeck.engine.model.layers.PatchEmbedding3D;

/**
 * The 3D patch embedding kernel at run time: the volumes' patches copied into rows [mb·T, C·s³] ({@link VolumePatches}),
 * then per example one {@link Sgemm} product Wᵀ rowsᵀ added straight into the sequence [mb, width, T], which starts as
 * the bias plus the positions ({@link VolumeTokenProducts}). The rows are kept for the backward pass (dW = rowsᵀ dY,
 * read from the sequence's gradient as it is), or with recompute cut again there from the input; its buffers
 * ({@link VolumePatchBuffers}) are reused from batch to batch.
 */
public class PatchEmbedding3DKernelLayer extends SameDiffLayer {

    private VolumePatchBuffers own;
    private VolumePatches cut;
    private long[] inputShape;

    public PatchEmbedding3DKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private PatchEmbedding3D embedding() {
        return (PatchEmbedding3D) layerConf();
    }

    private VolumePatchBuffers buffers() {
        if (layerConf() instanceof PatchEmbedding3DKernel k && k.isRecompute()) {
            return VolumePatchBuffers.shared();
        }
        if (own == null) {
            own = new VolumePatchBuffers();
        }
        return own;
    }

    /** The input's patches as rows, in b.rows (b.volume and b.work are used on the way). */
    private void cutRows(VolumePatches v, VolumePatchBuffers b) {
        b.volume = HostFloats.atLeast(b.volume, v.volumeValues());
        HostFloats.read(input, b.volume);
        b.rows = HostFloats.Native.fit(b.rows, v.rowValues());
        float[] r = b.work = HostFloats.atLeast(b.work, v.rowValues());
        v.cut(b.volume, r);
        b.rows.buffer.put(0, r, 0, (int) v.rowValues());
    }

    /** DL4J's SameDiffLayer checks the shape and then drops the value. */
    @Override
    public void setParam(String key, INDArray val) {
        super.setParam(key, val);
        getParam(key).assign(val);
    }

    private VolumePatches patchesOf(INDArray x) {
        PatchEmbedding3D pe = embedding();
        long[] want = {x.size(0), pe.channels(), pe.depth(), pe.height(), pe.volumeWidth()};
        if (x.rank() != 5 || !Arrays.equals(x.shape(), want)) {
            throw new IllegalStateException("PatchEmbedding3DKernel" + name() + ": expects [minibatch, "
                    + pe.channels() + ", " + pe.depth() + ", " + pe.height() + ", " + pe.volumeWidth() + "], got "
                    + Arrays.toString(x.shape()));
        }
        return new VolumePatches(
                (int) x.size(0),
                (int) pe.channels(),
                (int) pe.depth(),
                (int) pe.height(),
                (int) pe.volumeWidth(),
                pe.patchSize());
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        VolumePatches v = cut = patchesOf(input);
        inputShape = input.shape();
        VolumePatchBuffers b = buffers();
        int mb = v.examples();
        int n = v.tokens();
        int c = (int) embedding().width();
        cutRows(v, b);
        float[] start = b.positions = HostFloats.atLeast(b.positions, (long) c * n);
        float[] bias = b.bias = HostFloats.atLeast(b.bias, c);
        HostFloats.read(getParam(PatchEmbedding3D.POSITIONS), start);
        HostFloats.read(getParam(PatchEmbedding3D.BIAS), bias);
        for (int f = 0; f < c; f++) {
            for (int s = 0; s < n; s++) {
                start[f * n + s] += bias[f];
            }
        }
        INDArray ret = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, c, n}, 'c');
        FloatBuffer out = Sgemm.buffer(ret);
        for (int e = 0; e < mb; e++) {
            out.put(e * c * n, start, 0, c * n);
        }
        VolumeTokenProducts.tokens(v, c, b.rows.pointer, weights(), Sgemm.pointerTo(ret));
        return ret;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        VolumePatches v = cut;
        int c = (int) embedding().width();
        int n = v == null ? -1 : v.tokens();
        int mb = v == null ? -1 : v.examples();
        if (epsilon.rank() != 3 || epsilon.size(0) != mb || epsilon.size(1) != c || epsilon.size(2) != n) {
            throw new IllegalStateException(
                    "PatchEmbedding3DKernel" + name() + ": backward pass without the forward pass of this batch");
        }
        VolumePatchBuffers b = buffers();
        if (b != own) {
            cutRows(v, b);
        }
        INDArray dense = Sgemm.dense(epsilon);
        float[] e = b.work = HostFloats.atLeast(b.work, (long) mb * c * n);
        HostFloats.read(dense, e);
        float[] positions = b.positions = HostFloats.atLeast(b.positions, (long) c * n);
        float[] bias = b.bias = HostFloats.atLeast(b.bias, c);
        Arrays.fill(positions, 0, c * n, 0f);
        Arrays.fill(bias, 0, c, 0f);
        for (int i = 0; i < mb; i++) {
            for (int f = 0; f < c; f++) {
                int o = (i * c + f) * n;
                int pos = f * n;
                float sum = 0f;
                for (int s = 0; s < n; s++) {
                    float g = e[o + s];
                    positions[pos + s] += g;
                    sum += g;
                }
                bias[f] += sum;
            }
        }
        FloatPointer dY = Sgemm.pointerTo(dense);
        Gradient ret = new DefaultGradient();
        ret.gradientForVariable().put(PatchEmbedding3D.WEIGHTS, weightGradient(v, c, b, dY));
        put(ret, PatchEmbedding3D.BIAS, bias);
        put(ret, PatchEmbedding3D.POSITIONS, positions);
        return new Pair<>(ret, inputGradient(v, c, b, dY, mgr));
    }

    /** dW = rowsᵀ dY, written straight into W's gradient view. */
    private INDArray weightGradient(VolumePatches v, int c, VolumePatchBuffers b, FloatPointer dY) {
        INDArray dW = gradTable.get(PatchEmbedding3D.WEIGHTS);
        if (!Sgemm.isDenseRowMajor(dW)) {
            throw new IllegalStateException(
                    "PatchEmbedding3DKernel" + name() + ": W's gradient is not a dense row-major view");
        }
        VolumeTokenProducts.weightGradient(v, c, b.rows.pointer, dY, Sgemm.pointerTo(dW));
        return dW;
    }

    /** d rows = dY Wᵀ, each row put back as its patch. */
    private INDArray inputGradient(
            VolumePatches v, int c, VolumePatchBuffers b, FloatPointer dY, LayerWorkspaceMgr mgr) {
        if (!((PatchEmbedding3DKernel) layerConf()).inputGradient()) {
            return mgr.create(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, inputShape, 'c');
        }
        b.rowsGrad = HostFloats.Native.fit(b.rowsGrad, v.rowValues());
        VolumeTokenProducts.rowsGradient(v, c, dY, weights(), b.rowsGrad.pointer);
        float[] dr = b.work = HostFloats.atLeast(b.work, v.rowValues());
        b.rowsGrad.buffer.get(0, dr, 0, (int) v.rowValues());
        float[] volume = b.volume = HostFloats.atLeast(b.volume, v.volumeValues());
        v.place(dr, volume);
        INDArray epsNext = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, inputShape, 'c');
        HostFloats.write(volume, epsNext);
        return epsNext;
    }

    private void put(Gradient g, String key, float[] values) {
        INDArray view = gradTable.get(key);
        HostFloats.write(values, view);
        g.gradientForVariable().put(key, view);
    }

    private FloatPointer weights() {
        INDArray w = getParam(PatchEmbedding3D.WEIGHTS);
        if (!Sgemm.isDenseRowMajor(w)) {
            throw new IllegalStateException("PatchEmbedding3DKernel" + name() + ": W is not a dense row-major view");
        }
        return Sgemm.pointerTo(w);
    }

    private String name() {
        String n = layerConf().getLayerName();
        return n == null ? "" : " \"" + n + "\"";
    }
}
