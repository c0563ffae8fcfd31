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
import org.traindeck.engine.model.layers.PatchEmbedding3D;

/**
 * The 3D patch embedding kernel at run time: the volumes' patches copied into rows [mb·T, C·s³] ({@link VolumePatches}),
 * one {@link Sgemm} product with W, then bias and positions added while writing the sequence [mb, width, T]. The rows
 * are kept for the backward pass (dW = rowsᵀ dY); its buffers are reused from batch to batch.
 */
public class PatchEmbedding3DKernelLayer extends SameDiffLayer {

    private HostFloats.Native rows;
    private HostFloats.Native projected;
    private HostFloats.Native rowsGrad;
    private float[] volume = new float[0];
    private float[] sequence = new float[0];
    private float[] bias = new float[0];
    private float[] positions = new float[0];
    private float[] work = new float[0];
    private VolumePatches cut;
    private long[] inputShape;

    public PatchEmbedding3DKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private PatchEmbedding3D embedding() {
        return (PatchEmbedding3D) layerConf();
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
        int mb = v.examples();
        int n = v.tokens();
        int length = v.rowLength();
        int c = (int) embedding().width();
        volume = HostFloats.atLeast(volume, v.volumeValues());
        HostFloats.read(input, volume);
        rows = HostFloats.Native.fit(rows, v.rowValues());
        projected = HostFloats.Native.fit(projected, (long) mb * n * c);
        float[] r = work = HostFloats.atLeast(work, v.rowValues());
        v.cut(volume, r);
        rows.buffer.put(0, r, 0, mb * n * length);
        Sgemm.multiply(
                false,
                false,
                mb * n,
                c,
                length,
                1,
                rows.pointer,
                0,
                length,
                weights(),
                0,
                c,
                0,
                projected.pointer,
                0,
                c);
        float[] y = sequence = HostFloats.atLeast(sequence, (long) mb * n * c);
        projected.buffer.get(0, y, 0, mb * n * c);
        bias = HostFloats.atLeast(bias, c);
        positions = HostFloats.atLeast(positions, (long) c * n);
        HostFloats.read(getParam(PatchEmbedding3D.BIAS), bias);
        HostFloats.read(getParam(PatchEmbedding3D.POSITIONS), positions);
        float[] out = work = HostFloats.atLeast(work, (long) mb * c * n);
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int o = (b * c + f) * n;
                int pos = f * n;
                float bf = bias[f];
                int src = b * n * c + f;
                for (int s = 0; s < n; s++) {
                    out[o + s] = y[src + s * c] + bf + positions[pos + s];
                }
            }
        }
        INDArray ret = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, c, n}, 'c');
        HostFloats.write(out, ret);
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
        float[] e = work = HostFloats.atLeast(work, (long) mb * c * n);
        HostFloats.read(epsilon, e);
        Arrays.fill(positions, 0, c * n, 0f);
        Arrays.fill(bias, 0, c, 0f);
        float[] dy = sequence;
        for (int b = 0; b < mb; b++) {
            for (int f = 0; f < c; f++) {
                int o = (b * c + f) * n;
                int pos = f * n;
                int dst = b * n * c + f;
                float sum = 0f;
                for (int s = 0; s < n; s++) {
                    float g = e[o + s];
                    positions[pos + s] += g;
                    dy[dst + s * c] = g;
                    sum += g;
                }
                bias[f] += sum;
            }
        }
        projected.buffer.put(0, dy, 0, mb * n * c);
        Gradient ret = new DefaultGradient();
        ret.gradientForVariable().put(PatchEmbedding3D.WEIGHTS, weightGradient(v, c));
        put(ret, PatchEmbedding3D.BIAS, bias);
        put(ret, PatchEmbedding3D.POSITIONS, positions);
        return new Pair<>(ret, inputGradient(v, c, mgr));
    }

    /** dW = rowsᵀ dY, written straight into W's gradient view. */
    private INDArray weightGradient(VolumePatches v, int c) {
        INDArray dW = gradTable.get(PatchEmbedding3D.WEIGHTS);
        if (!Sgemm.isDenseRowMajor(dW)) {
            throw new IllegalStateException(
                    "PatchEmbedding3DKernel" + name() + ": W's gradient is not a dense row-major view");
        }
        int length = v.rowLength();
        int rowsCount = v.examples() * v.tokens();
        Sgemm.multiply(
                true,
                false,
                length,
                c,
                rowsCount,
                1,
                rows.pointer,
                0,
                length,
                projected.pointer,
                0,
                c,
                0,
                Sgemm.pointerTo(dW),
                0,
                c);
        return dW;
    }

    /** d rows = dY Wᵀ, each row put back as its patch. */
    private INDArray inputGradient(VolumePatches v, int c, LayerWorkspaceMgr mgr) {
        int length = v.rowLength();
        int rowsCount = v.examples() * v.tokens();
        rowsGrad = HostFloats.Native.fit(rowsGrad, v.rowValues());
        Sgemm.multiply(
                false,
                true,
                rowsCount,
                length,
                c,
                1,
                projected.pointer,
                0,
                c,
                weights(),
                0,
                c,
                0,
                rowsGrad.pointer,
                0,
                length);
        float[] dr = work = HostFloats.atLeast(work, v.rowValues());
        rowsGrad.buffer.get(0, dr, 0, rowsCount * length);
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
