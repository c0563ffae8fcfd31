package org.traindeck.engine.model.kernels;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;

/**
 * The config's kernel choices ({@code "kernel": "own" | "dl4j"}, and a transformer block's {@code recompute}) change
 * who computes a layer and what it keeps, never its parameters: a checkpoint's model fingerprint leaves them out, so a
 * run resumes with either choice.
 */
public final class KernelChoices {

    /** Node types whose "kernel" option picks who computes them (elsewhere "kernel" is a window size). */
    public static final Set<String> NODE_TYPES = Set.of(
            "dense",
            "batchNorm",
            "activation",
            "layerNorm",
            "transformerBlock",
            "embedding",
            "positionEmbedding",
            "patches",
            "patches3d",
            "unpatch3d",
            "maxPool2d",
            "maxPool3d",
            "upsample2d",
            "upsample3d",
            "concat");

    private static final String OPTION = "kernel";
    private static final String RECOMPUTE = "recompute";
    /** conv2d's kernel choice ("kernel" is its window size there). */
    private static final String IMPLEMENTATION = "implementation";

    private KernelChoices() {}

    /** The model with its kernel choices (and where its starting weights come from) removed: its architecture. */
    public static ModelConfig withoutChoices(ModelConfig model) {
        if (model instanceof ModelConfig.Mlp m) {
            return new ModelConfig.Mlp(m.hidden(), m.activation(), m.dropout());
        }
        if (model instanceof ModelConfig.Vit v) {
            return new ModelConfig.Vit(
                    v.patch(), v.width(), v.depth(), v.heads(), v.mlpRatio(), v.classToken(), v.dropout(), false, null);
        }
        if (model instanceof ModelConfig.Gpt g) {
            return new ModelConfig.Gpt(g.width(), g.depth(), g.heads(), g.mlpRatio(), g.dropout(), false, null);
        }
        if (model instanceof ModelConfig.Graph g) {
            List<LayerSpec> layers =
                    g.layers().stream().map(KernelChoices::withoutChoice).toList();
            return new ModelConfig.Graph(layers, g.head());
        }
        if (model instanceof ModelConfig.LeNet l && l.init() != null) {
            return new ModelConfig.LeNet(
                    l.channels(), l.kernelSize(), l.dense(), l.activation(), l.dropout(), l.batchNorm());
        }
        if (model instanceof ModelConfig.ResNet r && r.init() != null) {
            return new ModelConfig.ResNet(r.blocks(), r.channels(), r.activation());
        }
        if (model instanceof ModelConfig.Zoo z && z.init() != null) {
            return new ModelConfig.Zoo(z.architecture());
        }
        return model;
    }

    private static LayerSpec withoutChoice(LayerSpec spec) {
        if (spec.options().containsKey(IMPLEMENTATION)) {
            Map<String, Object> options = new LinkedHashMap<>(spec.options());
            options.remove(IMPLEMENTATION);
            spec = new LayerSpec(spec.name(), spec.type(), spec.inputs(), options);
        }
        if (!NODE_TYPES.contains(spec.type())
                || !spec.options().containsKey(OPTION) && !spec.options().containsKey(RECOMPUTE)) {
            return spec;
        }
        Map<String, Object> options = new LinkedHashMap<>(spec.options());
        options.remove(OPTION);
        options.remove(RECOMPUTE);
        return new LayerSpec(spec.name(), spec.type(), spec.inputs(), options);
    }
}
