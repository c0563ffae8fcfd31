package org.traindeck.engine.model.kernels.embedding;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.ParamInitializer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * A conditioned unpatch3d's parameters, row-major: the projection W [F, s³C] and b [1, s³C] (as unpatch3d's), the
 * modulation Wm [C', 2F] and bm [1, 2F] (each example's shift, then scale). All four start at zero, as DiT's final
 * layer: the network's first output is 0 and the condition counts from the first step on.
 */
public final class ConditionedUnpatch3DParams implements ParamInitializer {

    public static final ConditionedUnpatch3DParams INSTANCE = new ConditionedUnpatch3DParams();

    public static final String WEIGHTS = "W";
    public static final String BIAS = "b";
    public static final String MODULATION_WEIGHTS = "Wm";
    public static final String MODULATION_BIAS = "bm";

    static final List<String> KEYS = List.of(WEIGHTS, BIAS, MODULATION_WEIGHTS, MODULATION_BIAS);
    private static final List<String> WEIGHT_KEYS = List.of(WEIGHTS, MODULATION_WEIGHTS);
    private static final List<String> BIAS_KEYS = List.of(BIAS, MODULATION_BIAS);

    private ConditionedUnpatch3DParams() {}

    private static Map<String, long[]> shapes(Layer layer) {
        ConditionedUnpatch3D u = (ConditionedUnpatch3D) layer;
        Map<String, long[]> s = new LinkedHashMap<>();
        s.put(WEIGHTS, new long[] {u.features(), u.patchValues()});
        s.put(BIAS, new long[] {1, u.patchValues()});
        s.put(MODULATION_WEIGHTS, new long[] {u.conditionWidth(), 2 * u.features()});
        s.put(MODULATION_BIAS, new long[] {1, 2 * u.features()});
        return s;
    }

    @Override
    public long numParams(NeuralNetConfiguration conf) {
        return numParams(conf.getLayer());
    }

    @Override
    public long numParams(Layer layer) {
        return shapes(layer).values().stream().mapToLong(s -> s[0] * s[1]).sum();
    }

    @Override
    public List<String> paramKeys(Layer layer) {
        return KEYS;
    }

    @Override
    public List<String> weightKeys(Layer layer) {
        return WEIGHT_KEYS;
    }

    @Override
    public List<String> biasKeys(Layer layer) {
        return BIAS_KEYS;
    }

    @Override
    public boolean isWeightParam(Layer layer, String key) {
        return WEIGHT_KEYS.contains(key);
    }

    @Override
    public boolean isBiasParam(Layer layer, String key) {
        return BIAS_KEYS.contains(key);
    }

    @Override
    public Map<String, INDArray> init(NeuralNetConfiguration conf, INDArray paramsView, boolean initializeParams) {
        Map<String, INDArray> out = views(conf.getLayer(), paramsView);
        KEYS.forEach(conf::addVariable);
        if (initializeParams) {
            out.values().forEach(v -> v.assign(0));
        }
        return out;
    }

    @Override
    public Map<String, INDArray> getGradientsFromFlattened(NeuralNetConfiguration conf, INDArray gradientView) {
        return views(conf.getLayer(), gradientView);
    }

    private static Map<String, INDArray> views(Layer layer, INDArray flat) {
        INDArray row = flat.reshape(flat.length());
        Map<String, INDArray> out = new LinkedHashMap<>();
        long at = 0;
        for (Map.Entry<String, long[]> e : shapes(layer).entrySet()) {
            long n = e.getValue()[0] * e.getValue()[1];
            out.put(e.getKey(), row.get(NDArrayIndex.interval(at, at + n)).reshape('c', e.getValue()));
            at += n;
        }
        return out;
    }
}
