package org.traindeck.engine.model.kernels.transformer;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
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
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/**
 * The fused transformer block's CPU kernel: one transpose in ([mb, C, T] to rows [mb T, C]), products as direct
 * {@link Sgemm} calls on the parameters' and buffers' native memory (attention per example and head in
 * {@link TransformerBlockAttention}), the elementwise work as Java loops on heap rows ({@link TransformerBlockMath}),
 * one transpose out; the passes themselves are {@link TransformerBlockPasses}, this class DL4J's side of the layer
 * (checks, buffers, dropout masks, the gradient views). The forward pass keeps what the backward pass needs, so nothing runs twice; with recompute it keeps only the input, the
 * attention's output and the dropout masks, the buffers are shared by the thread's blocks and hold one example's
 * attention probabilities (the backward pass computes them again per example).
 */
public class TransformerBlockLayer extends BaseLayer<TransformerBlock> {

    private static final ThreadLocal<Map<String, TransformerBlockBuffers>> SHARED =
            ThreadLocal.withInitial(HashMap::new);

    private TransformerBlockBuffers own;
    private final TransformerBlockDropout dropout = new TransformerBlockDropout();
    private final TransformerBlockPasses passes;

    public TransformerBlockLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
        passes = new TransformerBlockPasses((TransformerBlock) conf.getLayer());
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
        passes.p.bindParameters(paramsFlattened, TransformerBlockParams.keys(layerConf()), params);
    }

    private void bindGradients() {
        passes.p.bindGradients(gradientsFlattened, TransformerBlockParams.keys(layerConf()), gradientViews);
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
        int[] sizes = passes.read(in);
        int mb = sizes[0];
        int t = sizes[1];
        bindParameters();
        TransformerBlockBuffers b = buffers(mb, t);
        passes.useMasks(
                training && layerConf().getDropout() > 0
                        ? dropout.draw(
                                layerConf().hasContext() ? 3 : 2,
                                b.rows,
                                width(),
                                layerConf().getDropout())
                        : null);
        passes.forward(in, b, false);
        INDArray out = workspaceMgr.createUninitialized(
                ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, width(), t}, 'c');
        TransformerBlockMath.fromRows(b.rows2, b.rows1, mb, width(), t);
        Sgemm.buffer(out).put(0, b.rows1, 0, b.rows * width());
        return out;
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
            passes.read(in);
            passes.forward(in, b, true);
        }
        float[][] sideGradients = passes.backward(eps, b);
        TransformerBlockMath.fromRows(b.dr1, b.rows1, mb, width(), t);
        INDArray dx;
        TransformerBlockSides sides = passes.sides;
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
}
