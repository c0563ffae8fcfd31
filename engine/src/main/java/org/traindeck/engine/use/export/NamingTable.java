package org.traindeck.engine.use.export;

import static org.traindeck.engine.use.export.Layouts.linear;
import static org.traindeck.engine.use.export.Layouts.param;
import static org.traindeck.engine.use.export.Layouts.same;
import static org.traindeck.engine.use.export.Layouts.vector;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.Convolution1DLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.Deconvolution2D;
import org.deeplearning4j.nn.conf.layers.Deconvolution3D;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingLayer;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.conf.layers.recurrent.TimeDistributed;
import org.deeplearning4j.nn.params.BatchNormalizationParamInitializer;
import org.deeplearning4j.nn.params.DefaultParamInitializer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.traindeck.engine.model.kernels.conv.BatchNormKernel;
import org.traindeck.engine.model.kernels.conv.Conv3DKernel;
import org.traindeck.engine.model.kernels.conv.ConvKernel;
import org.traindeck.engine.model.kernels.conv.Deconv2DKernel;
import org.traindeck.engine.model.kernels.conv.Deconv3DKernel;
import org.traindeck.engine.model.kernels.conv.SyncBatchNormKernel;
import org.traindeck.engine.model.kernels.dense.DenseKernel;
import org.traindeck.engine.model.kernels.dense.SoftmaxOutputHead;
import org.traindeck.engine.model.kernels.dense.SoftmaxSequenceHead;
import org.traindeck.engine.model.kernels.embedding.ConditionedUnpatch3D;
import org.traindeck.engine.model.kernels.embedding.PatchEmbedding3DKernel;
import org.traindeck.engine.model.kernels.embedding.PatchEmbeddingKernel;
import org.traindeck.engine.model.kernels.embedding.PositionEmbeddingKernel;
import org.traindeck.engine.model.kernels.embedding.TokenEmbedding;
import org.traindeck.engine.model.kernels.embedding.Unpatch3DKernel;
import org.traindeck.engine.model.kernels.transformer.CrossAttention;
import org.traindeck.engine.model.kernels.transformer.LayerNormKernel;
import org.traindeck.engine.model.kernels.transformer.TransformerBlock;
import org.traindeck.engine.model.layers.LayerNorm;
import org.traindeck.engine.model.layers.PatchEmbedding;
import org.traindeck.engine.model.layers.PatchEmbedding3D;
import org.traindeck.engine.model.layers.PositionEmbedding;
import org.traindeck.engine.model.layers.SelfAttention;
import org.traindeck.engine.model.layers.Unpatch3D;

/**
 * The names and layouts of each layer type's parameters, by the DL4J layer class a node compiles to (exact classes:
 * a subclass such as Deconvolution2D lays its weights out differently from its parent). A new layer type with parameters
 * adds one entry; one without parameters needs none. The layouts are PyTorch's: torch.nn.Linear [out, in], Conv
 * [out, in, k...] (DL4J's own order), ConvTranspose [in, out, k...], Embedding [count, width], LayerNorm and BatchNorm1d/2d's weight, bias,
 * running_mean and running_var.
 */
public final class NamingTable {

    private static final NamingTable STANDARD = standardTable();

    private final Map<Class<? extends Layer>, TensorNaming> byClass;

    private NamingTable(Map<Class<? extends Layer>, TensorNaming> byClass) {
        this.byClass = Map.copyOf(byClass);
    }

    public static NamingTable standard() {
        return STANDARD;
    }

    /** This table and one more entry (a plug-in's layer). */
    public NamingTable with(Class<? extends Layer> layer, TensorNaming naming) {
        Map<Class<? extends Layer>, TensorNaming> all = new LinkedHashMap<>(byClass);
        all.put(layer, naming);
        return new NamingTable(all);
    }

    /**
     * The node's tensors.
     *
     * @throws ExportException when the node has parameters and no entry names them
     */
    public List<NamedTensor> tensors(String node, Layer layer, Map<String, INDArray> params) {
        if (params.isEmpty()) {
            return List.of();
        }
        TensorNaming naming = byClass.get(layer.getClass());
        if (naming == null) {
            throw new ExportException(
                    "node '" + node + "' is a " + layer.getClass().getSimpleName() + " with parameters "
                            + params.keySet()
                            + ", which export cannot name in PyTorch's layout yet; the layer types it can name: "
                            + String.join(
                                    ", ",
                                    byClass.keySet().stream()
                                            .map(Class::getSimpleName)
                                            .sorted()
                                            .toList()));
        }
        return naming.tensors(node, layer, params);
    }

    private static NamingTable standardTable() {
        Map<Class<? extends Layer>, TensorNaming> t = new LinkedHashMap<>();
        putLinear(t);
        putConvolutions(t);
        putNorms(t);
        putEmbeddings(t);
        putAttention(t);
        putPatches(t);
        t.put(
                TimeDistributed.class,
                (node, layer, p) -> standard().tensors(node, ((TimeDistributed) layer).getUnderlying(), p));
        return new NamingTable(t);
    }

    private static void putLinear(Map<Class<? extends Layer>, TensorNaming> t) {
        TensorNaming dense = (node, layer, p) -> linear(
                node, param(node, p, DefaultParamInitializer.WEIGHT_KEY), p.get(DefaultParamInitializer.BIAS_KEY));
        t.put(DenseLayer.class, dense);
        t.put(DenseKernel.class, dense);
        t.put(OutputLayer.class, dense);
        t.put(RnnOutputLayer.class, dense);
        t.put(SoftmaxSequenceHead.class, dense);
        t.put(SoftmaxOutputHead.class, dense);
    }

    private static void putConvolutions(Map<Class<? extends Layer>, TensorNaming> t) {
        TensorNaming conv = NamingTable::convolution;
        t.put(ConvolutionLayer.class, conv);
        t.put(ConvKernel.class, conv);
        t.put(Convolution1DLayer.class, conv);
        t.put(Convolution3D.class, conv);
        t.put(Conv3DKernel.class, conv);
        // DL4J's [iC, oC, kH, kW] is torch.nn.ConvTranspose2d's weight as it is
        t.put(Deconvolution2D.class, conv);
        t.put(Deconv2DKernel.class, conv);
        t.put(Deconvolution3D.class, conv);
        t.put(Deconv3DKernel.class, conv);
    }

    private static void putNorms(Map<Class<? extends Layer>, TensorNaming> t) {
        t.put(BatchNormalization.class, NamingTable::batchNorm);
        t.put(BatchNormKernel.class, NamingTable::batchNorm);
        t.put(SyncBatchNormKernel.class, NamingTable::batchNorm);
        TensorNaming layerNorm = (node, layer, p) -> List.of(
                vector(node + ".weight", param(node, p, LayerNorm.GAIN)),
                vector(node + ".bias", param(node, p, LayerNorm.BIAS)));
        t.put(LayerNorm.class, layerNorm);
        t.put(LayerNormKernel.class, layerNorm);
    }

    private static void putEmbeddings(Map<Class<? extends Layer>, TensorNaming> t) {
        TensorNaming embedding =
                (node, layer, p) -> weightAndBias(node, param(node, p, DefaultParamInitializer.WEIGHT_KEY), p);
        t.put(EmbeddingSequenceLayer.class, embedding);
        t.put(EmbeddingLayer.class, embedding);
        t.put(TokenEmbedding.class, embedding);
        // [width, maxLength] as nn.Embedding(maxLength, width).weight: a row per position
        TensorNaming positions = (node, layer, p) ->
                List.of(Layouts.transposed(node + ".weight", param(node, p, PositionEmbedding.POSITIONS)));
        t.put(PositionEmbedding.class, positions);
        t.put(PositionEmbeddingKernel.class, positions);
    }

    private static void putAttention(Map<Class<? extends Layer>, TensorNaming> t) {
        t.put(SelfAttention.class, AttentionNaming::selfAttention);
        t.put(TransformerBlock.class, AttentionNaming::transformerBlock);
        t.put(CrossAttention.class, AttentionNaming::crossAttention);
    }

    private static void putPatches(Map<Class<? extends Layer>, TensorNaming> t) {
        t.put(PatchEmbedding.class, NamingTable::patches);
        t.put(PatchEmbeddingKernel.class, NamingTable::patches);
        t.put(PatchEmbedding3D.class, VolumePatchNaming::patches);
        t.put(PatchEmbedding3DKernel.class, VolumePatchNaming::patches);
        t.put(Unpatch3D.class, VolumePatchNaming::unpatch);
        t.put(Unpatch3DKernel.class, VolumePatchNaming::unpatch);
        t.put(ConditionedUnpatch3D.class, VolumePatchNaming::finalLayer);
    }

    private static List<NamedTensor> convolution(String node, Layer layer, Map<String, INDArray> p) {
        INDArray w = param(node, p, DefaultParamInitializer.WEIGHT_KEY);
        // a 1D convolution is a 2D one of width 1 inside DL4J
        if (layer instanceof Convolution1DLayer && w.rank() == 4) {
            w = w.reshape(w.size(0), w.size(1), w.size(2) * w.size(3));
        }
        // DL4J's (and libnd4j's deconv3d's) [kD, kH, kW, oC, iC] as torch.nn.ConvTranspose3d's [iC, oC, kD, kH, kW]
        if (layer instanceof Deconvolution3D) {
            w = w.permute(4, 3, 0, 1, 2);
        }
        return weightAndBias(node, w, p);
    }

    /** The weight as DL4J holds it, and the bias where the layer has one. */
    private static List<NamedTensor> weightAndBias(String node, INDArray weight, Map<String, INDArray> p) {
        List<NamedTensor> out = new ArrayList<>(List.of(same(node + ".weight", weight)));
        if (p.containsKey(DefaultParamInitializer.BIAS_KEY)) {
            out.add(vector(node + ".bias", p.get(DefaultParamInitializer.BIAS_KEY)));
        }
        return out;
    }

    private static List<NamedTensor> batchNorm(String node, Layer layer, Map<String, INDArray> p) {
        List<NamedTensor> out = new ArrayList<>();
        if (p.containsKey(BatchNormalizationParamInitializer.GAMMA)) {
            out.add(vector(node + ".weight", p.get(BatchNormalizationParamInitializer.GAMMA)));
            out.add(vector(node + ".bias", param(node, p, BatchNormalizationParamInitializer.BETA)));
        }
        out.add(vector(node + ".running_mean", param(node, p, BatchNormalizationParamInitializer.GLOBAL_MEAN)));
        INDArray var = p.get(BatchNormalizationParamInitializer.GLOBAL_VAR);
        if (var == null) {
            // DL4J keeps log10 of the standard deviation: variance = (10^s)^2
            INDArray log10Std = param(node, p, BatchNormalizationParamInitializer.GLOBAL_LOG_STD);
            var = Transforms.pow(
                    Nd4j.valueArrayOf(log10Std.shape(), 10.0, log10Std.dataType()), log10Std.mul(2), false);
        }
        out.add(vector(node + ".running_var", var));
        return out;
    }

    /**
     * A patch is (channel, row, column) flattened, so the projection [C p p, width] is nn.Conv2d(C, width, p, stride=p)'s
     * weight; positions [width, N] become a row per position, the class token a vector.
     */
    private static List<NamedTensor> patches(String node, Layer layer, Map<String, INDArray> p) {
        INDArray w = param(node, p, PatchEmbedding.WEIGHTS);
        INDArray pos = param(node, p, PatchEmbedding.POSITIONS);
        long width = w.size(1);
        long patchArea = ((PatchEmbedding) layer).getPatchSize() * (long) ((PatchEmbedding) layer).getPatchSize();
        long channels = w.size(0) / patchArea;
        int side = ((PatchEmbedding) layer).getPatchSize();
        List<NamedTensor> out = new ArrayList<>();
        out.add(Layouts.tensor(node + ".projection.weight", w.transpose(), new long[] {width, channels, side, side}));
        out.add(vector(node + ".projection.bias", param(node, p, PatchEmbedding.BIAS)));
        out.add(Layouts.transposed(node + ".positions", pos));
        if (p.containsKey(PatchEmbedding.CLASS_TOKEN)) {
            out.add(vector(node + ".class_token", p.get(PatchEmbedding.CLASS_TOKEN)));
        }
        return out;
    }
}
