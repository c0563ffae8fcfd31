package org.traindeck.engine.model.kernels.transformer;

import java.util.Arrays;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.BaseLayer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelParameters;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/** {@link CrossAttention}'s CPU kernel: the block's cross-attention without its norm and residual. */
public class CrossAttentionLayer extends BaseLayer<CrossAttention> {

    private TransformerBlockCrossAttention attention;
    private BlockInputsLayout layout;
    private float[] packed;
    private final float[][] local = new float[4][];
    private final KernelParameters p = new KernelParameters();

    public CrossAttentionLayer(NeuralNetConfiguration conf, DataType dataType) {
        super(conf, dataType);
    }

    @Override
    public boolean isPretrainLayer() {
        return false;
    }

    @Override
    public void fit(INDArray input, LayerWorkspaceMgr workspaceMgr) {
        throw new UnsupportedOperationException("a cross-attention is trained inside its network");
    }

    @Override
    public Type type() {
        return Type.RECURRENT;
    }

    private int width() {
        return (int) layerConf().getWidth();
    }

    private void read(LayerWorkspaceMgr mgr, ArrayType type) {
        if (input.dataType() != DataType.FLOAT || input.rank() != 2) {
            throw new IllegalStateException("CrossAttention \"" + layerConf().getLayerName()
                    + "\": takes its packed float32 inputs [minibatch, size], got " + input.dataType() + " "
                    + Arrays.toString(input.shape()));
        }
        INDArray in = mgr.dup(type, input, 'c');
        int mb = (int) in.size(0);
        int size = (int) in.size(1);
        packed = new float[mb * size];
        Sgemm.buffer(in).get(0, packed, 0, packed.length);
        layout = BlockInputsLayout.of(
                packed,
                mb,
                size,
                width(),
                0,
                true,
                "CrossAttention \"" + layerConf().getLayerName() + "\"");
        if (attention == null) {
            attention = new TransformerBlockCrossAttention(width(), layerConf().getHeads(), false, false);
            int chunk = TransformerBlockMath.tile(new float[width()], width()).length;
            for (int i = 0; i < local.length; i++) {
                local[i] = new float[chunk];
            }
        }
        p.bindParameters(paramsFlattened, CrossAttentionParams.KEYS, params);
    }

    @Override
    public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
        assertInputSet(false);
        read(workspaceMgr, ArrayType.FF_WORKING_MEM);
        int mb = layout.mb();
        int t = layout.steps();
        int nc = mb * t * width();
        float[] tokens = new float[nc];
        float[] rows = new float[nc];
        layout.tokens(packed, tokens);
        TransformerBlockMath.toRows(tokens, rows, mb, width(), t);
        float[] out = new float[nc];
        attention.forward(
                rows, layout.context(packed, new float[0]), mb, t, layout.contextSteps(), p, null, 0, out, local);
        TransformerBlockMath.fromRows(out, tokens, mb, width(), t);
        INDArray result = workspaceMgr.createUninitialized(
                ArrayType.ACTIVATIONS, DataType.FLOAT, new long[] {mb, width(), t}, 'c');
        Sgemm.buffer(result).put(0, tokens, 0, nc);
        return result;
    }

    @Override
    public Pair<Gradient, INDArray> backpropGradient(INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
        assertInputSet(true);
        p.bindGradients(gradientsFlattened, CrossAttentionParams.KEYS, gradientViews);
        int mb = layout.mb();
        int t = layout.steps();
        int nc = mb * t * width();
        INDArray eps = workspaceMgr.dup(ArrayType.BP_WORKING_MEM, epsilon, 'c');
        float[] e = new float[nc];
        float[] d = new float[nc];
        Sgemm.buffer(eps).get(0, e, 0, nc);
        TransformerBlockMath.toRows(e, d, mb, width(), t);
        float[] dContext = attention.backward(d, p, null, 0, local);
        TransformerBlockMath.fromRows(d, e, mb, width(), t);
        float[] grads = layout.gradient(e, null, dContext, new float[0]);
        INDArray dx = workspaceMgr.createUninitialized(
                ArrayType.ACTIVATION_GRAD, DataType.FLOAT, new long[] {mb, layout.size()}, 'c');
        Sgemm.buffer(dx).put(0, grads, 0, grads.length);
        Gradient g = new DefaultGradient(gradientsFlattened);
        CrossAttentionParams.KEYS.forEach(k -> g.gradientForVariable().put(k, gradientViews.get(k)));
        return new Pair<>(g, dx);
    }
}
