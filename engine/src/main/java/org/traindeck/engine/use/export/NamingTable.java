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
import org.traindeck.engine.model.kernels.transformer.TransformerBlockParams;
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
        TensorNaming dense = (node, layer, p) -> linear(
                node, param(node, p, DefaultParamInitializer.WEIGHT_KEY), p.get(DefaultParamInitializer.BIAS_KEY));
        t.put(DenseLayer.class, dense);
        t.put(DenseKernel.class, dense);
        t.put(OutputLayer.class, dense);
        t.put(RnnOutputLayer.class, dense);
        t.put(SoftmaxSequenceHead.class, dense);
        t.put(SoftmaxOutputHead.class, dense);
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
        t.put(BatchNormalization.class, NamingTable::batchNorm);
        t.put(BatchNormKernel.class, NamingTable::batchNorm);
        t.put(SyncBatchNormKernel.class, NamingTable::batchNorm);
        TensorNaming layerNorm = (node, layer, p) -> List.of(
                vector(node + ".weight", param(node, p, LayerNorm.GAIN)),
                vector(node + ".bias", param(node, p, LayerNorm.BIAS)));
        t.put(LayerNorm.class, layerNorm);
        t.put(LayerNormKernel.class, layerNorm);
        TensorNaming embedding = (node, layer, p) -> {
            List<NamedTensor> out = new ArrayList<>(
                    List.of(same(node + ".weight", param(node, p, DefaultParamInitializer.WEIGHT_KEY))));
            if (p.containsKey(DefaultParamInitializer.BIAS_KEY)) {
                out.add(vector(node + ".bias", p.get(DefaultParamInitializer.BIAS_KEY)));
            }
            return out;
        };
        t.put(EmbeddingSequenceLayer.class, embedding);
        t.put(EmbeddingLayer.class, embedding);
        t.put(TokenEmbedding.class, embedding);
        // [width, maxLength] as nn.Embedding(maxLength, width).weight: a row per position
        TensorNaming positions = (node, layer, p) ->
                List.of(Layouts.transposed(node + ".weight", param(node, p, PositionEmbedding.POSITIONS)));
        t.put(PositionEmbedding.class, positions);
        t.put(PositionEmbeddingKernel.class, positions);
        t.put(
                SelfAttention.class,
                (node, layer, p) -> attention(
                        node,
                        ((SelfAttention) layer).getNOut(),
                        param(node, p, SelfAttention.QKV_WEIGHTS),
                        param(node, p, SelfAttention.QKV_BIAS),
                        param(node, p, SelfAttention.OUT_WEIGHTS),
                        param(node, p, SelfAttention.OUT_BIAS)));
        t.put(TransformerBlock.class, NamingTable::transformerBlock);
        t.put(
                CrossAttention.class,
                (node, layer, p) -> attention(
                        node,
                        ((CrossAttention) layer).getWidth(),
                        param(node, p, TransformerBlockParams.CROSS_QKV_WEIGHTS),
                        param(node, p, TransformerBlockParams.CROSS_QKV_BIAS),
                        param(node, p, TransformerBlockParams.CROSS_OUT_WEIGHTS),
                        param(node, p, TransformerBlockParams.CROSS_OUT_BIAS)));
        t.put(PatchEmbedding.class, NamingTable::patches);
        t.put(PatchEmbeddingKernel.class, NamingTable::patches);
        t.put(PatchEmbedding3D.class, VolumePatchNaming::patches);
        t.put(PatchEmbedding3DKernel.class, VolumePatchNaming::patches);
        t.put(Unpatch3D.class, VolumePatchNaming::unpatch);
        t.put(Unpatch3DKernel.class, VolumePatchNaming::unpatch);
        t.put(ConditionedUnpatch3D.class, VolumePatchNaming::finalLayer);
        t.put(
                TimeDistributed.class,
                (node, layer, p) -> standard().tensors(node, ((TimeDistributed) layer).getUnderlying(), p));
        return new NamingTable(t);
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
        List<NamedTensor> out = new ArrayList<>(List.of(same(node + ".weight", w)));
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

    /** Queries, keys and values are consecutive column blocks of one [in, 3 width] matrix (heads side by side in each). */
    private static List<NamedTensor> attention(
            String prefix, long width, INDArray wqkv, INDArray bqkv, INDArray wo, INDArray bo) {
        List<NamedTensor> out = new ArrayList<>();
        String[] parts = {"q", "k", "v"};
        for (int i = 0; i < 3; i++) {
            out.add(Layouts.columnsTransposed(prefix + "." + parts[i] + ".weight", wqkv, i * width, (i + 1) * width));
            out.add(Layouts.slice(prefix + "." + parts[i] + ".bias", bqkv, i * width, (i + 1) * width));
        }
        out.addAll(linear(prefix + ".o", wo, bo));
        return out;
    }

    /** The fused block under the names of the nodes it stands for (norm1, attention, norm2, mlp1, mlp2). */
    private static List<NamedTensor> transformerBlock(String node, Layer layer, Map<String, INDArray> p) {
        TransformerBlock b = (TransformerBlock) layer;
        List<NamedTensor> out = new ArrayList<>();
        out.add(vector(node + ".norm1.weight", param(node, p, TransformerBlockParams.NORM1_GAIN)));
        out.add(vector(node + ".norm1.bias", param(node, p, TransformerBlockParams.NORM1_BIAS)));
        out.addAll(attention(
                node + ".attention",
                b.getWidth(),
                param(node, p, TransformerBlockParams.QKV_WEIGHTS),
                param(node, p, TransformerBlockParams.QKV_BIAS),
                param(node, p, TransformerBlockParams.OUT_WEIGHTS),
                param(node, p, TransformerBlockParams.OUT_BIAS)));
        out.add(vector(node + ".norm2.weight", param(node, p, TransformerBlockParams.NORM2_GAIN)));
        out.add(vector(node + ".norm2.bias", param(node, p, TransformerBlockParams.NORM2_BIAS)));
        out.addAll(linear(
                node + ".mlp1",
                param(node, p, TransformerBlockParams.MLP1_WEIGHTS),
                param(node, p, TransformerBlockParams.MLP1_BIAS)));
        out.addAll(linear(
                node + ".mlp2",
                param(node, p, TransformerBlockParams.MLP2_WEIGHTS),
                param(node, p, TransformerBlockParams.MLP2_BIAS)));
        out.addAll(conditioning(node, b, p));
        return out;
    }

    /** adaLN-Zero's linear map as DiT's adaLN_modulation = Sequential(SiLU, Linear); the cross-attention and its norm. */
    private static List<NamedTensor> conditioning(String node, TransformerBlock b, Map<String, INDArray> p) {
        List<NamedTensor> out = new ArrayList<>();
        if (b.getConditionWidth() > 0) {
            out.add(Layouts.transposed(
                    node + ".adaLN_modulation.1.weight", param(node, p, TransformerBlockParams.MODULATION_WEIGHTS)));
            out.add(vector(node + ".adaLN_modulation.1.bias", param(node, p, TransformerBlockParams.MODULATION_BIAS)));
        }
        if (b.hasContext()) {
            out.add(vector(node + ".norm_cross.weight", param(node, p, TransformerBlockParams.CROSS_NORM_GAIN)));
            out.add(vector(node + ".norm_cross.bias", param(node, p, TransformerBlockParams.CROSS_NORM_BIAS)));
            out.addAll(attention(
                    node + ".cross_attention",
                    b.getWidth(),
                    param(node, p, TransformerBlockParams.CROSS_QKV_WEIGHTS),
                    param(node, p, TransformerBlockParams.CROSS_QKV_BIAS),
                    param(node, p, TransformerBlockParams.CROSS_OUT_WEIGHTS),
                    param(node, p, TransformerBlockParams.CROSS_OUT_BIAS)));
        }
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
