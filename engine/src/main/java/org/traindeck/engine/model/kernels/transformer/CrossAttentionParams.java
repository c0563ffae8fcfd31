package org.traindeck.engine.model.kernels.transformer;

import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_OUT_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_OUT_WEIGHTS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_QKV_BIAS;
import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.CROSS_QKV_WEIGHTS;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.ParamInitializer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.weights.IWeightInit;
import org.deeplearning4j.nn.weights.WeightInitXavier;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The crossAttention node's parameters, as the block's cross-attention holds them: Wqkv [W, 3W] (queries, keys,
 * values), Wo [W, W], bqkv [1, 3W], bo [1, W], row-major; weights from the layer's init (Xavier by default), biases 0.
 */
public final class CrossAttentionParams implements ParamInitializer {

    public static final CrossAttentionParams INSTANCE = new CrossAttentionParams();

    static final List<String> KEYS = List.of(CROSS_QKV_WEIGHTS, CROSS_OUT_WEIGHTS, CROSS_QKV_BIAS, CROSS_OUT_BIAS);
    private static final List<String> WEIGHTS = List.of(CROSS_QKV_WEIGHTS, CROSS_OUT_WEIGHTS);

    private CrossAttentionParams() {}

    private static Map<String, long[]> shapes(Layer layer) {
        long c = ((CrossAttention) layer).getWidth();
        Map<String, long[]> s = new LinkedHashMap<>();
        s.put(CROSS_QKV_WEIGHTS, new long[] {c, 3 * c});
        s.put(CROSS_OUT_WEIGHTS, new long[] {c, c});
        s.put(CROSS_QKV_BIAS, new long[] {1, 3 * c});
        s.put(CROSS_OUT_BIAS, new long[] {1, c});
        return s;
    }

    @Override
    public long numParams(NeuralNetConfiguration conf) {
        return numParams(conf.getLayer());
    }

    @Override
    public long numParams(Layer layer) {
        long c = ((CrossAttention) layer).getWidth();
        return 4 * c * c + 4 * c;
    }

    @Override
    public List<String> paramKeys(Layer layer) {
        return KEYS;
    }

    @Override
    public List<String> weightKeys(Layer layer) {
        return WEIGHTS;
    }

    @Override
    public List<String> biasKeys(Layer layer) {
        return List.of(CROSS_QKV_BIAS, CROSS_OUT_BIAS);
    }

    @Override
    public boolean isWeightParam(Layer layer, String key) {
        return WEIGHTS.contains(key);
    }

    @Override
    public boolean isBiasParam(Layer layer, String key) {
        return CROSS_QKV_BIAS.equals(key) || CROSS_OUT_BIAS.equals(key);
    }

    @Override
    public Map<String, INDArray> init(NeuralNetConfiguration conf, INDArray paramsView, boolean initializeParams) {
        CrossAttention a = (CrossAttention) conf.getLayer();
        Map<String, INDArray> out = views(a, paramsView);
        KEYS.forEach(conf::addVariable);
        if (initializeParams) {
            long c = a.getWidth();
            IWeightInit scheme = a.getWeightInitFn() == null ? new WeightInitXavier() : a.getWeightInitFn();
            INDArray qkv = out.get(CROSS_QKV_WEIGHTS);
            scheme.init(c, c, qkv.shape(), 'c', qkv);
            INDArray o = out.get(CROSS_OUT_WEIGHTS);
            scheme.init(c, c, o.shape(), 'c', o);
            out.get(CROSS_QKV_BIAS).assign(0);
            out.get(CROSS_OUT_BIAS).assign(0);
        }
        return out;
    }

    @Override
    public Map<String, INDArray> getGradientsFromFlattened(NeuralNetConfiguration conf, INDArray gradientView) {
        return views((CrossAttention) conf.getLayer(), gradientView);
    }

    private static Map<String, INDArray> views(CrossAttention a, INDArray flat) {
        INDArray row = flat.reshape(flat.length());
        Map<String, INDArray> out = new LinkedHashMap<>();
        long at = 0;
        for (Map.Entry<String, long[]> e : shapes(a).entrySet()) {
            long n = e.getValue()[0] * e.getValue()[1];
            out.put(e.getKey(), row.get(NDArrayIndex.interval(at, at + n)).reshape('c', e.getValue()));
            at += n;
        }
        return out;
    }
}
