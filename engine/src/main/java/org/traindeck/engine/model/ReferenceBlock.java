package org.traindeck.engine.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.TokenSequence;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.model.nodes.TransformerBlockNode;

/**
 * The reference spelling of nodes whose kernel fuses several layers. A pre-norm transformer block spelled out as
 * layerNorm, attention, dropout, add and dense nodes: the reference the fused transformerBlock kernel is checked
 * against, and what a transformerBlock node with "kernel": "dl4j" becomes (a positionEmbedding with dropout becomes a
 * positionEmbedding node {@code <name>_sum} and a dropout node). The block's nodes are named {@code <prefix>norm1},
 * {@code <prefix>attention}, {@code <prefix>norm2}, {@code <prefix>mlp1} and {@code <prefix>mlp2}, so their parameters
 * have the fused block's keys.
 */
final class ReferenceBlock {

    static final String OWN = "own";
    static final String DL4J = "dl4j";

    private ReferenceBlock() {}

    /**
     * Whether the node is a transformerBlock that runs on the reference layers: it or the model asks for them, or ND4J's
     * backend is not the CPU's (the own kernel reads and writes host memory).
     */
    static boolean applies(LayerSpec spec, KernelUse kernels) {
        Object option = spec.options().get("kernel");
        boolean reference = !kernels.kernelFor(option == null ? null : option.toString())
                || !Nd4j.getEnvironment().isCPU();
        return reference && ("transformerBlock".equals(spec.type()) || droppingPositions(spec));
    }

    /** Whether TrainDeck's own CPU kernel computes the node: neither it nor the model asks for DL4J's, and ND4J runs on the CPU. */
    static boolean ownKernelRuns(LayerSpec spec, KernelUse kernels) {
        Object option = spec.options().get("kernel");
        return kernels.kernelFor(option == null ? null : option.toString())
                && Nd4j.getEnvironment().isCPU();
    }

    /**
     * Why a node with a condition or a context cannot run on the reference layers: they express neither adaLN-Zero nor
     * cross-attention (DL4J's layers take one input), and spelling both out as SameDiff nodes would be a second
     * implementation to keep equal to the kernel's.
     */
    static String refusal(LayerSpec spec) {
        String what = String.join(" and ", spec.sideInputs().keySet());
        return DL4J.equals(spec.options().get("kernel"))
                ? "reads a " + what + ", which only TrainDeck's own kernel does: remove its \"kernel\": \"dl4j\""
                : "reads a " + what + ", which only TrainDeck's own CPU kernel does, but this run builds DL4J's layers"
                        + " (ND4J's CUDA backend): run it on the CPU";
    }

    /** A positionEmbedding with dropout: the kernel fuses the dropout in, the reference is a positionEmbedding and a dropout node. */
    private static boolean droppingPositions(LayerSpec spec) {
        return "positionEmbedding".equals(spec.type())
                && spec.options().get("dropout") instanceof Number rate
                && rate.doubleValue() > 0;
    }

    /** The node as reference nodes, its last one named as the node; the node itself when its input is no sequence (it says why). */
    static List<LayerSpec> spell(LayerSpec spec, String input, InputType in) {
        if (!(in instanceof InputType.InputTypeRecurrent r) || in instanceof TokenSequence) {
            return List.of(spec);
        }
        NodeOptions o = new NodeOptions(spec.type(), spec.options());
        if (droppingPositions(spec)) {
            Map<String, Object> options = new LinkedHashMap<>(spec.options());
            options.remove("dropout");
            String sum = spec.name() + "_sum";
            return List.of(
                    new LayerSpec(sum, spec.type(), List.of(input), options),
                    Expansions.spec(spec.name(), "dropout", List.of(sum), "rate", o.number("dropout")));
        }
        int width = (int) r.getSize();
        List<LayerSpec> out = new ArrayList<>();
        nodes(
                out,
                spec.name() + "_",
                spec.name(),
                input,
                width,
                o.integer("heads"),
                (int) TransformerBlockNode.hidden(o, width),
                o.bool("causal"),
                o.number("dropout"));
        return out;
    }

    /**
     * The nodes with parameters a node may be spelled as (where {@link #applies}), besides the node itself: what a
     * node's own learning-rate scale and freezing apply to wherever it is spelled out.
     */
    static List<String> spelledNames(LayerSpec spec) {
        if ("transformerBlock".equals(spec.type())) {
            String prefix = spec.name() + "_";
            return List.of(prefix + "norm1", prefix + "attention", prefix + "norm2", prefix + "mlp1", prefix + "mlp2");
        }
        if (droppingPositions(spec)) {
            return List.of(spec.name() + "_sum");
        }
        return List.of();
    }

    /** Appends the block's nodes to {@code out}; the last (the second residual add) is named {@code last}. */
    static void nodes(
            List<LayerSpec> out,
            String prefix,
            String last,
            String input,
            int width,
            int heads,
            int hidden,
            boolean causal,
            double dropout) {
        out.add(Expansions.spec(prefix + "norm1", "layerNorm", List.of(input), "epsilon", 1e-5));
        out.add(Expansions.spec(
                prefix + "attention", "attention", List.of(prefix + "norm1"), "heads", heads, "causal", causal));
        String attn = Expansions.dropout(out, prefix + "attention", dropout);
        out.add(Expansions.spec(prefix + "residual1", "add", List.of(attn, input)));
        out.add(Expansions.spec(prefix + "norm2", "layerNorm", List.of(prefix + "residual1"), "epsilon", 1e-5));
        out.add(Expansions.spec(
                prefix + "mlp1",
                "dense",
                List.of(prefix + "norm2"),
                "units",
                hidden,
                "activation",
                "gelu",
                "bias",
                true));
        out.add(Expansions.spec(
                prefix + "mlp2",
                "dense",
                List.of(prefix + "mlp1"),
                "units",
                width,
                "activation",
                "identity",
                "bias",
                true));
        String mlp = Expansions.dropout(out, prefix + "mlp2", dropout);
        out.add(Expansions.spec(last, "add", List.of(mlp, prefix + "residual1")));
    }
}
