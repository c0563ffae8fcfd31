package org.traindeck.engine.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.nodes.ActivationNode;
import org.traindeck.engine.model.nodes.Add;
import org.traindeck.engine.model.nodes.Attention;
import org.traindeck.engine.model.nodes.BatchNorm;
import org.traindeck.engine.model.nodes.BidirectionalLstm;
import org.traindeck.engine.model.nodes.Concat;
import org.traindeck.engine.model.nodes.Convolution;
import org.traindeck.engine.model.nodes.CrossAttentionNode;
import org.traindeck.engine.model.nodes.Deconvolution;
import org.traindeck.engine.model.nodes.Dense;
import org.traindeck.engine.model.nodes.DepthwiseConvolution;
import org.traindeck.engine.model.nodes.Dropout;
import org.traindeck.engine.model.nodes.Embedding;
import org.traindeck.engine.model.nodes.FirstToken;
import org.traindeck.engine.model.nodes.Flatten;
import org.traindeck.engine.model.nodes.GlobalPool;
import org.traindeck.engine.model.nodes.LayerNormNode;
import org.traindeck.engine.model.nodes.Lstm;
import org.traindeck.engine.model.nodes.PRelu;
import org.traindeck.engine.model.nodes.Patches;
import org.traindeck.engine.model.nodes.Patches3d;
import org.traindeck.engine.model.nodes.Pooling;
import org.traindeck.engine.model.nodes.PositionEmbeddingNode;
import org.traindeck.engine.model.nodes.Reshape;
import org.traindeck.engine.model.nodes.SeparableConvolution;
import org.traindeck.engine.model.nodes.TimestepEmbeddingNode;
import org.traindeck.engine.model.nodes.TransformerBlockNode;
import org.traindeck.engine.model.nodes.Unpatch3d;
import org.traindeck.engine.model.nodes.Upsampling;

/** The layer types a graph config may use, by name: the standard set, or it plus a test's or a plug-in's own. */
public final class LayerKinds {

    private static final LayerKinds STANDARD = new LayerKinds(List.of(
            new Dense(),
            new Convolution(1),
            new Convolution(2),
            new Convolution(3),
            new Deconvolution(2),
            new Deconvolution(3),
            new Upsampling(2),
            new Upsampling(3),
            new Pooling(true, 1),
            new Pooling(false, 1),
            new Pooling(true, 2),
            new Pooling(false, 2),
            new Pooling(true, 3),
            new Pooling(false, 3),
            new GlobalPool(),
            new BatchNorm(),
            new Dropout(false),
            new Dropout(true),
            new ActivationNode(),
            new Flatten(),
            new Add(),
            new Concat(),
            new SeparableConvolution(),
            new DepthwiseConvolution(),
            new PRelu(),
            new Reshape(),
            new Embedding(),
            new Lstm(),
            new BidirectionalLstm(),
            new LayerNormNode(),
            new Attention(),
            new CrossAttentionNode(),
            new Patches(),
            new Patches3d(),
            new Unpatch3d(),
            new PositionEmbeddingNode(),
            new FirstToken(),
            new TransformerBlockNode(),
            new TimestepEmbeddingNode()));

    private final Map<String, LayerKind> byType = new LinkedHashMap<>();

    private LayerKinds(List<LayerKind> kinds) {
        for (LayerKind k : kinds) {
            if (byType.put(k.type(), k) != null) {
                throw new IllegalArgumentException("two layer kinds are named " + k.type());
            }
        }
    }

    public static LayerKinds standard() {
        return STANDARD;
    }

    /** These kinds and {@code more}. */
    public LayerKinds with(LayerKind... more) {
        List<LayerKind> all = new ArrayList<>(byType.values());
        all.addAll(List.of(more));
        return new LayerKinds(all);
    }

    /** The kind named {@code type}; null when there is none. */
    public LayerKind get(String type) {
        return byType.get(type);
    }
}
