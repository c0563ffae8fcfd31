package org.traindeck.engine.use.export;

import static org.traindeck.engine.use.export.Layouts.param;
import static org.traindeck.engine.use.export.Layouts.vector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.embedding.ConditionedUnpatch3DParams;
import org.traindeck.engine.model.layers.PatchEmbedding3D;
import org.traindeck.engine.model.layers.Unpatch3D;

/**
 * The {@link NamingTable} entries of patches3d and unpatch3d, named as a PyTorch module holds them: a patch embedding's
 * {@code proj} (nn.Conv3d(C, units, s, stride=s)) and {@code pos_embed} [1, T, units]; unpatch's nn.Linear(features,
 * s³·C), whose outputs are each token's patch in [C, s, s, s] order; with a condition, DiT's FinalLayer.
 */
final class VolumePatchNaming {

    private VolumePatchNaming() {}

    /** A patch is (channel, depth, row, column) flattened, so the projection [C s³, units] is Conv3d's weight. */
    static List<NamedTensor> patches(String node, Layer layer, Map<String, INDArray> p) {
        INDArray w = param(node, p, PatchEmbedding3D.WEIGHTS);
        INDArray pos = param(node, p, PatchEmbedding3D.POSITIONS);
        int s = ((PatchEmbedding3D) layer).patchSize();
        long units = w.size(1);
        long channels = w.size(0) / ((long) s * s * s);
        return List.of(
                Layouts.tensor(node + ".proj.weight", w.transpose(), new long[] {units, channels, s, s, s}),
                vector(node + ".proj.bias", param(node, p, PatchEmbedding3D.BIAS)),
                Layouts.tensor(node + ".pos_embed", pos.transpose(), new long[] {1, pos.size(1), units}));
    }

    static List<NamedTensor> unpatch(String node, Layer layer, Map<String, INDArray> p) {
        return Layouts.linear(node, param(node, p, Unpatch3D.WEIGHTS), param(node, p, Unpatch3D.BIAS));
    }

    /**
     * A conditioned unpatch3d as DiT's FinalLayer: {@code adaLN_modulation} = Sequential(SiLU, Linear(C, 2F)) and
     * {@code linear}; its norm has no parameters.
     */
    static List<NamedTensor> finalLayer(String node, Layer layer, Map<String, INDArray> p) {
        List<NamedTensor> out = new ArrayList<>(Layouts.linear(
                node + ".adaLN_modulation.1",
                param(node, p, ConditionedUnpatch3DParams.MODULATION_WEIGHTS),
                param(node, p, ConditionedUnpatch3DParams.MODULATION_BIAS)));
        out.addAll(Layouts.linear(
                node + ".linear",
                param(node, p, ConditionedUnpatch3DParams.WEIGHTS),
                param(node, p, ConditionedUnpatch3DParams.BIAS)));
        return out;
    }
}
