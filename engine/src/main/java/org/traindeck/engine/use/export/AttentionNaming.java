package org.traindeck.engine.use.export;

import static org.traindeck.engine.use.export.Layouts.linear;
import static org.traindeck.engine.use.export.Layouts.param;
import static org.traindeck.engine.use.export.Layouts.vector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.transformer.CrossAttention;
import org.traindeck.engine.model.kernels.transformer.TransformerBlock;
import org.traindeck.engine.model.kernels.transformer.TransformerBlockParams;
import org.traindeck.engine.model.layers.SelfAttention;

/**
 * The {@link NamingTable} entries of the attention layers: selfAttention and crossAttention as q, k, v and o linear
 * maps, and the fused transformer block under the names of the nodes it stands for, with DiT's adaLN_modulation.
 */
final class AttentionNaming {

    private AttentionNaming() {}

    static List<NamedTensor> selfAttention(String node, Layer layer, Map<String, INDArray> p) {
        return attention(
                node,
                ((SelfAttention) layer).getNOut(),
                param(node, p, SelfAttention.QKV_WEIGHTS),
                param(node, p, SelfAttention.QKV_BIAS),
                param(node, p, SelfAttention.OUT_WEIGHTS),
                param(node, p, SelfAttention.OUT_BIAS));
    }

    static List<NamedTensor> crossAttention(String node, Layer layer, Map<String, INDArray> p) {
        return crossAttention(node, node, ((CrossAttention) layer).getWidth(), p);
    }

    /** The fused block under the names of the nodes it stands for (norm1, attention, norm2, mlp1, mlp2). */
    static List<NamedTensor> transformerBlock(String node, Layer layer, Map<String, INDArray> p) {
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
            out.addAll(crossAttention(node, node + ".cross_attention", b.getWidth(), p));
        }
        return out;
    }

    /** The crossAttention node and the block's cross-attention hold their parameters under the same keys. */
    private static List<NamedTensor> crossAttention(String node, String prefix, long width, Map<String, INDArray> p) {
        return attention(
                prefix,
                width,
                param(node, p, TransformerBlockParams.CROSS_QKV_WEIGHTS),
                param(node, p, TransformerBlockParams.CROSS_QKV_BIAS),
                param(node, p, TransformerBlockParams.CROSS_OUT_WEIGHTS),
                param(node, p, TransformerBlockParams.CROSS_OUT_BIAS));
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
}
