package org.traindeck.engine.model.kernels;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers.Region;

/**
 * A kernel layer's parameters and gradients as native regions by key, bound again whenever DL4J gives the layer new
 * flat arrays (a network's params or gradients replaced).
 */
public final class KernelParameters implements BlockParameters {

    private final Map<String, Region> params = new HashMap<>();
    private final Map<String, Region> gradients = new HashMap<>();
    private INDArray paramsOf;
    private INDArray gradientsOf;

    /** The views of {@code flat} by key. */
    public void bindParameters(INDArray flat, List<String> keys, Map<String, INDArray> views) {
        if (paramsOf != flat) {
            params.clear();
            keys.forEach(k -> params.put(k, Region.of(views.get(k))));
            paramsOf = flat;
        }
    }

    public void bindGradients(INDArray flat, List<String> keys, Map<String, INDArray> views) {
        if (gradientsOf != flat) {
            gradients.clear();
            keys.forEach(k -> gradients.put(k, Region.of(views.get(k))));
            gradientsOf = flat;
        }
    }

    @Override
    public FloatPointer pointer(String key) {
        return params.get(key).pointer;
    }

    @Override
    public FloatPointer gradientPointer(String key) {
        return gradients.get(key).pointer;
    }

    @Override
    public float[] vector(String key) {
        Region r = params.get(key);
        float[] v = new float[r.buffer.capacity()];
        r.buffer.get(0, v, 0, v.length);
        return v;
    }

    @Override
    public void setGradient(String key, float[] values, int n) {
        gradients.get(key).buffer.put(0, values, 0, n);
    }
}
