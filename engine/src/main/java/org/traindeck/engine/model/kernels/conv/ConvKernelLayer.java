package org.traindeck.engine.model.kernels.conv;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.convolution.ConvolutionLayer;
import org.deeplearning4j.nn.params.ConvolutionParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.OpContext;
import org.nd4j.linalg.api.ops.impl.layers.convolution.Conv2D;
import org.nd4j.linalg.api.ops.impl.layers.convolution.Conv2DDerivative;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.traindeck.engine.model.kernels.HostFloats;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * {@link ConvKernel} at run time, on NCHW float input: libnd4j's conv2d and conv2d_bp ops (oneDNN's primitives where
 * the oneDNN natives are loaded, as a run loads them) called directly on the layer's parameter and gradient views,
 * with the relu as libnd4j's in-place op and its derivative as a Java loop. What it leaves out of DL4J's layer around
 * the same two ops: a copy of the pre-activation for the backward pass (the kernel reads the relu output the graph's
 * workspace still holds), the relu's and its derivative's fresh arrays, a recomputed forward pass when no forward
 * cache is open, and the input gradient of a layer that reads the network's input. Other data types, masks and
 * mismatched inputs go to DL4J's layer.
 */
public class ConvKernelLayer extends ConvolutionLayer {

    private static final int CHUNK = 4096;
    private static final ThreadLocal<float[][]> CHUNKS =
            ThreadLocal.withInitial(() -> new float[][] {new float[CHUNK], new float[CHUNK]});

    private transient OpContext forward;
    private transient OpContext backward;
    /** The relu's output of the last training forward pass, for the mask: in the graph's activations workspace. */
    private INDArray kept;

    private long keptGeneration;
    private HostFloats.Native delta;
    private final ConvWeightGradient weightGradient = new ConvWeightGradient();

    public ConvKernelLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    private ConvKernel kernelConf() {
        return (ConvKernel) conf().getLayer();
    }

    private boolean computes(INDArray a) {
        return dataType == DataType.FLOAT
                && a.dataType() == DataType.FLOAT
                && a.rank() == 4
                && maskArray == null
                && a.size(1) == kernelConf().getNIn();
    }

    private long[] outputShape(INDArray x) {
        ConvKernel k = kernelConf();
        int[] kernel = k.getKernelSize();
        int[] pad = k.padding();
        return new long[] {
            x.size(0), k.getNOut(), x.size(2) + 2L * pad[0] - kernel[0] + 1, x.size(3) + 2L * pad[1] - kernel[1] + 1
        };
    }

    /** conv2d's integer arguments: window, stride 1, padding, dilation 1, same mode, NCHW, weights [oC, iC, kH, kW]. */
    private OpContext context() {
        ConvKernel k = kernelConf();
        int[] kernel = k.getKernelSize();
        int[] pad = k.padding();
        OpContext c = Nd4j.getExecutioner().buildContext();
        c.setIArguments(
                kernel[0],
                kernel[1],
                1,
                1,
                pad[0],
                pad[1],
                1,
                1,
                k.getConvolutionMode() == ConvolutionMode.Same ? 1 : 0,
                0,
                1);
        return c;
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr mgr) {
        assertInputSet(false);
        if (!computes(input)) {
            return super.activate(training, mgr);
        }
        INDArray x = Sgemm.dense(input);
        INDArray out = mgr.createUninitialized(ArrayType.ACTIVATIONS, DataType.FLOAT, outputShape(x), 'c');
        if (forward == null) {
            forward = context();
        }
        forward.purge();
        forward.setInputArray(0, x);
        forward.setInputArray(1, getParam(ConvolutionParamInitializer.WEIGHT_KEY));
        if (hasBias()) {
            forward.setInputArray(2, ConvOpCalls.vector(getParam(ConvolutionParamInitializer.BIAS_KEY)));
        }
        forward.setOutputArray(0, out);
        Nd4j.exec(new Conv2D(), forward);
        if (kernelConf().relu()) {
            // libnd4j's in-place relu: a Java pass through the heap measured slower here
            Transforms.relu(out, false);
            if (training) {
                // no copy: no layer writes into its input (a graph may hand it to several), and the activations
                // workspace stays open until the backward pass; keptValid checks both before the mask is read
                kept = out;
                keptGeneration = generation(out);
            }
        }
        return out;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr mgr) {
        assertInputSet(true);
        boolean relu = kernelConf().relu();
        if (!computes(input) || epsilon.dataType() != DataType.FLOAT || relu && !keptValid(outputShape(input))) {
            return super.backpropGradient(epsilon, mgr);
        }
        INDArray x = Sgemm.dense(input);
        INDArray dy = Sgemm.dense(epsilon);
        INDArray dz = dy;
        if (relu) {
            delta = HostFloats.Native.fit(delta, dy.length());
            dz = delta.array.get(NDArrayIndex.interval(0, dy.length())).reshape('c', dy.shape());
            reluMask(Sgemm.buffer(dy), Sgemm.buffer(kept), Sgemm.buffer(dz), (int) dy.length());
        }
        INDArray dW = gradientViews.get(ConvolutionParamInitializer.WEIGHT_KEY);
        INDArray db = gradientViews.get(ConvolutionParamInitializer.BIAS_KEY);
        if (!kernelConf().inputGradient()) {
            weightGradient.compute(
                    x,
                    dz,
                    dW,
                    hasBias() ? ConvOpCalls.vector(db) : null,
                    kernelConf().getKernelSize(),
                    kernelConf().padding());
            return new Pair<>(gradient(dW, db), mgr.create(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, x.shape(), 'c'));
        }
        INDArray dx = mgr.createUninitialized(ArrayType.ACTIVATION_GRAD, DataType.FLOAT, x.shape(), 'c');
        if (backward == null) {
            backward = context();
        }
        ConvOpCalls.backward(
                backward,
                new Conv2DDerivative(),
                x,
                getParam(ConvolutionParamInitializer.WEIGHT_KEY),
                hasBias() ? ConvOpCalls.vector(getParam(ConvolutionParamInitializer.BIAS_KEY)) : null,
                dz,
                dx,
                dW,
                hasBias() ? ConvOpCalls.vector(db) : null);
        return new Pair<>(gradient(dW, db), dx);
    }

    private Gradient gradient(INDArray dW, INDArray db) {
        return ConvOpCalls.gradient(dW, hasBias() ? db : null);
    }

    /** dz = dy·[y > 0] from the relu's output y ≥ 0, by a min rather than a branch (the relu kernel's step). */
    static void reluMask(FloatBuffer dy, FloatBuffer y, FloatBuffer dz, int n) {
        float[][] chunks = CHUNKS.get();
        float[] g = chunks[0];
        float[] m = chunks[1];
        for (int at = 0; at < n; at += CHUNK) {
            int len = Math.min(CHUNK, n - at);
            dy.get(at, g, 0, len);
            y.get(at, m, 0, len);
            for (int i = 0; i < len; i++) {
                g[i] *= Math.min(1f, m[i] * 0x1p127f * 0x1p127f);
            }
            dz.put(at, g, 0, len);
        }
    }

    /** The kept output still holds this pass's values: not freed, and its workspace open in the same cycle. */
    private boolean keptValid(long[] outputShape) {
        if (kept == null || kept.wasClosed() || !Arrays.equals(kept.shape(), outputShape)) {
            return false;
        }
        return !kept.isAttached()
                || kept.data().getParentWorkspace().isScopeActive() && generation(kept) == keptGeneration;
    }

    static long generation(INDArray a) {
        return a.isAttached() ? a.data().getParentWorkspace().getGenerationId() : -1;
    }

    /** Whether the backward pass will run on the kernel for an output of this shape (tests). */
    boolean backwardOnKernel(long[] outputShape) {
        return !kernelConf().relu() || keptValid(outputShape);
    }

    @Override
    public void clear() {
        super.clear();
        kept = null;
    }
}
