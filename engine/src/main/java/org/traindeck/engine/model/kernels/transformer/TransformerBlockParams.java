package org.traindeck.engine.model.kernels.transformer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.ParamInitializer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.weights.IWeightInit;
import org.deeplearning4j.nn.weights.WeightInit;
import org.deeplearning4j.nn.weights.WeightInitXavier;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * The block's parameters in the order, shapes and memory layouts of the spelled-out block, so that the flat parameter
 * and updater-state vectors (what checkpoints hold) are the same: layer norms [1, C] gain then bias; attention as TrainDeck's
 * SameDiff layer holds it, weights first, row-major (Wqkv [C, 3C], Wo [C, C], bqkv [1, 3C], bo [1, C]); the dense
 * layers as DL4J's DenseLayer, weights column-major (W [in, out] in 'f' order, b [out]). The names are the
 * spelled-out node's suffix and its parameter's name in camel case (block1_norm1 gain: block1 norm1Gain): DL4J splits a
 * graph key at its last underscore to find the layer, so a parameter's own name cannot hold one. Initialisation draws from ND4J's RNG in the nodes' order with their schemes (attention: the
 * layer's init, Xavier by default; mlp1 He, mlp2 Xavier, as TrainDeck's dense nodes choose before GELU and identity),
 * so a seed gives both layouts the same start.
 */
public final class TransformerBlockParams implements ParamInitializer {

    public static final TransformerBlockParams INSTANCE = new TransformerBlockParams();

    public static final String NORM1_GAIN = "norm1Gain";
    public static final String NORM1_BIAS = "norm1Bias";
    public static final String QKV_WEIGHTS = "attentionWqkv";
    public static final String OUT_WEIGHTS = "attentionWo";
    public static final String QKV_BIAS = "attentionBqkv";
    public static final String OUT_BIAS = "attentionBo";
    public static final String NORM2_GAIN = "norm2Gain";
    public static final String NORM2_BIAS = "norm2Bias";
    public static final String MLP1_WEIGHTS = "mlp1W";
    public static final String MLP1_BIAS = "mlp1B";
    public static final String MLP2_WEIGHTS = "mlp2W";
    public static final String MLP2_BIAS = "mlp2B";

    static final List<String> KEYS = List.of(
            NORM1_GAIN,
            NORM1_BIAS,
            QKV_WEIGHTS,
            OUT_WEIGHTS,
            QKV_BIAS,
            OUT_BIAS,
            NORM2_GAIN,
            NORM2_BIAS,
            MLP1_WEIGHTS,
            MLP1_BIAS,
            MLP2_WEIGHTS,
            MLP2_BIAS);
    /** adaLN-Zero's linear map SiLU(condition) [C] to shift, scale and gate of both branches [6 W], row-major. */
    public static final String MODULATION_WEIGHTS = "adaLnW";

    public static final String MODULATION_BIAS = "adaLnB";
    /** The cross-attention: its layer norm and, as the self-attention's, Wqkv [W, 3W], Wo, bqkv, bo. */
    public static final String CROSS_NORM_GAIN = "normCrossGain";

    public static final String CROSS_NORM_BIAS = "normCrossBias";
    public static final String CROSS_QKV_WEIGHTS = "crossWqkv";
    public static final String CROSS_OUT_WEIGHTS = "crossWo";
    public static final String CROSS_QKV_BIAS = "crossBqkv";
    public static final String CROSS_OUT_BIAS = "crossBo";

    static final List<String> CROSS_KEYS = List.of(
            CROSS_NORM_GAIN, CROSS_NORM_BIAS, CROSS_QKV_WEIGHTS, CROSS_OUT_WEIGHTS, CROSS_QKV_BIAS, CROSS_OUT_BIAS);
    private static final List<String> WEIGHTS = List.of(
            QKV_WEIGHTS,
            OUT_WEIGHTS,
            MLP1_WEIGHTS,
            MLP2_WEIGHTS,
            MODULATION_WEIGHTS,
            CROSS_QKV_WEIGHTS,
            CROSS_OUT_WEIGHTS);

    private TransformerBlockParams() {}

    /** Shape and storage order of each parameter, in flat-vector order. */
    static Map<String, Shape> shapes(TransformerBlock b) {
        long c = b.getWidth();
        long f = b.getHidden();
        Map<String, Shape> s = new LinkedHashMap<>();
        s.put(NORM1_GAIN, new Shape('c', 1, c));
        s.put(NORM1_BIAS, new Shape('c', 1, c));
        s.put(QKV_WEIGHTS, new Shape('c', c, 3 * c));
        s.put(OUT_WEIGHTS, new Shape('c', c, c));
        s.put(QKV_BIAS, new Shape('c', 1, 3 * c));
        s.put(OUT_BIAS, new Shape('c', 1, c));
        s.put(NORM2_GAIN, new Shape('c', 1, c));
        s.put(NORM2_BIAS, new Shape('c', 1, c));
        s.put(MLP1_WEIGHTS, new Shape('f', c, f));
        s.put(MLP1_BIAS, new Shape('c', f));
        s.put(MLP2_WEIGHTS, new Shape('f', f, c));
        s.put(MLP2_BIAS, new Shape('c', c));
        // after the plain block's, so that an unconditioned block's layout stays as it was
        if (b.getConditionWidth() > 0) {
            s.put(MODULATION_WEIGHTS, new Shape('c', b.getConditionWidth(), 6 * c));
            s.put(MODULATION_BIAS, new Shape('c', 1, 6 * c));
        }
        if (b.hasContext()) {
            s.put(CROSS_NORM_GAIN, new Shape('c', 1, c));
            s.put(CROSS_NORM_BIAS, new Shape('c', 1, c));
            s.put(CROSS_QKV_WEIGHTS, new Shape('c', c, 3 * c));
            s.put(CROSS_OUT_WEIGHTS, new Shape('c', c, c));
            s.put(CROSS_QKV_BIAS, new Shape('c', 1, 3 * c));
            s.put(CROSS_OUT_BIAS, new Shape('c', 1, c));
        }
        return s;
    }

    /** Dense biases are vectors [out], the others matrices. */
    record Shape(char order, long... dims) {
        long length() {
            long n = 1;
            for (long d : dims) {
                n *= d;
            }
            return n;
        }
    }

    @Override
    public long numParams(NeuralNetConfiguration conf) {
        return numParams(conf.getLayer());
    }

    @Override
    public long numParams(Layer layer) {
        return shapes((TransformerBlock) layer).values().stream()
                .mapToLong(Shape::length)
                .sum();
    }

    @Override
    public List<String> paramKeys(Layer layer) {
        return keys((TransformerBlock) layer);
    }

    /** The block's parameter keys in flat-vector order: the plain block's, then adaLN's and the cross-attention's. */
    static List<String> keys(TransformerBlock b) {
        return List.copyOf(shapes(b).keySet());
    }

    @Override
    public List<String> weightKeys(Layer layer) {
        return paramKeys(layer).stream().filter(WEIGHTS::contains).toList();
    }

    @Override
    public List<String> biasKeys(Layer layer) {
        List<String> out = new ArrayList<>(paramKeys(layer));
        out.removeAll(WEIGHTS);
        return out;
    }

    @Override
    public boolean isWeightParam(Layer layer, String key) {
        return WEIGHTS.contains(key);
    }

    @Override
    public boolean isBiasParam(Layer layer, String key) {
        return paramKeys(layer).contains(key) && !WEIGHTS.contains(key);
    }

    @Override
    public Map<String, INDArray> init(NeuralNetConfiguration conf, INDArray paramsView, boolean initializeParams) {
        TransformerBlock b = (TransformerBlock) conf.getLayer();
        Map<String, INDArray> out = views(b, paramsView);
        for (String key : keys(b)) {
            conf.addVariable(key);
        }
        if (initializeParams) {
            long c = b.getWidth();
            long f = b.getHidden();
            IWeightInit attention = b.getWeightInitFn() == null ? new WeightInitXavier() : b.getWeightInitFn();
            out.get(NORM1_GAIN).assign(1);
            out.get(NORM1_BIAS).assign(0);
            init(attention, out.get(QKV_WEIGHTS), c, c, 'c');
            init(attention, out.get(OUT_WEIGHTS), c, c, 'c');
            out.get(QKV_BIAS).assign(0);
            out.get(OUT_BIAS).assign(0);
            out.get(NORM2_GAIN).assign(1);
            out.get(NORM2_BIAS).assign(0);
            init(WeightInit.RELU.getWeightInitFunction(), out.get(MLP1_WEIGHTS), c, f, 'f');
            out.get(MLP1_BIAS).assign(b.getBiasInit());
            init(WeightInit.XAVIER.getWeightInitFunction(), out.get(MLP2_WEIGHTS), f, c, 'f');
            out.get(MLP2_BIAS).assign(b.getBiasInit());
            initConditioning(b, attention, out);
        }
        return out;
    }

    /** adaLN's map at zero (each block starts as the identity, DiT's adaLN-Zero); the cross-attention as the self-attention. */
    private static void initConditioning(TransformerBlock b, IWeightInit attention, Map<String, INDArray> out) {
        if (b.getConditionWidth() > 0) {
            out.get(MODULATION_WEIGHTS).assign(0);
            out.get(MODULATION_BIAS).assign(0);
        }
        if (b.hasContext()) {
            long c = b.getWidth();
            out.get(CROSS_NORM_GAIN).assign(1);
            out.get(CROSS_NORM_BIAS).assign(0);
            init(attention, out.get(CROSS_QKV_WEIGHTS), c, c, 'c');
            init(attention, out.get(CROSS_OUT_WEIGHTS), c, c, 'c');
            out.get(CROSS_QKV_BIAS).assign(0);
            out.get(CROSS_OUT_BIAS).assign(0);
        }
    }

    private static void init(IWeightInit scheme, INDArray view, long fanIn, long fanOut, char order) {
        scheme.init(fanIn, fanOut, view.shape(), order, view);
    }

    @Override
    public Map<String, INDArray> getGradientsFromFlattened(NeuralNetConfiguration conf, INDArray gradientView) {
        return views((TransformerBlock) conf.getLayer(), gradientView);
    }

    private static Map<String, INDArray> views(TransformerBlock b, INDArray flat) {
        INDArray row = flat.reshape(flat.length());
        Map<String, INDArray> out = new LinkedHashMap<>();
        long at = 0;
        for (Map.Entry<String, Shape> e : shapes(b).entrySet()) {
            Shape s = e.getValue();
            out.put(
                    e.getKey(),
                    row.get(NDArrayIndex.interval(at, at + s.length())).reshape(s.order(), s.dims()));
            at += s.length();
        }
        return out;
    }
}
