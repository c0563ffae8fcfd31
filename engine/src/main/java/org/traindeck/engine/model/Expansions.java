package org.traindeck.engine.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;

/**
 * The vit and gpt shorthands as the layer graphs they stand for, every option spelled out, so that
 * {@code traindeck validate --expand} prints a graph a user can copy into a config and edit.
 */
final class Expansions {

    private Expansions() {}

    static List<LayerSpec> vit(ModelConfig.Vit v) {
        List<LayerSpec> out = new ArrayList<>();
        out.add(reference(
                spec("patches", "patches", null, "size", v.patch(), "units", v.width(), "classToken", v.classToken()),
                v.kernel()));
        String last = dropout(out, "patches", v.dropout());
        last = blocks(
                out,
                last,
                v.depth(),
                v.width(),
                v.heads(),
                v.mlpRatio(),
                false,
                v.dropout(),
                v.recompute(),
                v.kernel());
        out.add(spec("norm", "layerNorm", List.of(last), "epsilon", 1e-5));
        out.add(v.classToken() ? spec("token", "firstToken", null) : spec("pool", "globalPool", null, "mode", "avg"));
        return out;
    }

    static List<LayerSpec> gpt(ModelConfig.Gpt g) {
        List<LayerSpec> out = new ArrayList<>();
        String last = "positions";
        if (ReferenceBlock.DL4J.equals(g.kernel())) {
            out.add(reference(spec("tokens", "embedding", null, "units", g.width()), g.kernel()));
            out.add(reference(spec("positions", "positionEmbedding", null), g.kernel()));
            last = dropout(out, "positions", g.dropout());
        } else {
            out.add(spec("tokens", "embedding", null, "units", g.width()));
            // the position kernel applies the dropout itself
            out.add(
                    g.dropout() > 0
                            ? spec("positions", "positionEmbedding", null, "dropout", g.dropout())
                            : spec("positions", "positionEmbedding", null));
        }
        last = blocks(
                out, last, g.depth(), g.width(), g.heads(), g.mlpRatio(), true, g.dropout(), g.recompute(), g.kernel());
        out.add(spec("norm", "layerNorm", List.of(last), "epsilon", 1e-5));
        return out;
    }

    /**
     * Pre-norm transformer blocks: x + attention(norm(x)), then x + mlp(norm(x)); each one transformerBlock node (named
     * blockN) on the own kernel, or with kernel "dl4j" the nodes it stands for (blockN_norm1 ... blockN_residual2), whose
     * parameters have the same keys.
     */
    private static String blocks(
            List<LayerSpec> out,
            String last,
            int depth,
            int width,
            int heads,
            double mlpRatio,
            boolean causal,
            double dropout,
            boolean recompute,
            String kernel) {
        if (!ReferenceBlock.DL4J.equals(kernel)) {
            for (int b = 1; b <= depth; b++) {
                out.add(spec(
                        "block" + b,
                        "transformerBlock",
                        List.of(last),
                        "heads",
                        heads,
                        "mlpRatio",
                        mlpRatio,
                        "causal",
                        causal,
                        "dropout",
                        dropout,
                        "recompute",
                        recompute));
                last = "block" + b;
            }
            return last;
        }
        int hidden = Math.max(1, (int) Math.round(width * mlpRatio));
        for (int b = 1; b <= depth; b++) {
            String p = "block" + b + "_";
            ReferenceBlock.nodes(out, p, p + "residual2", last, width, heads, hidden, causal, dropout);
            last = p + "residual2";
        }
        return last;
    }

    /** The node with "kernel": "dl4j" when the model asks for DL4J's layers, else as it is. */
    private static LayerSpec reference(LayerSpec spec, String kernel) {
        if (!ReferenceBlock.DL4J.equals(kernel)) {
            return spec;
        }
        Map<String, Object> options = new LinkedHashMap<>(spec.options());
        options.put("kernel", ReferenceBlock.DL4J);
        return new LayerSpec(spec.name(), spec.type(), spec.inputs(), options);
    }

    static String dropout(List<LayerSpec> out, String after, double rate) {
        if (rate <= 0) {
            return after;
        }
        out.add(spec(after + "_dropout", "dropout", List.of(after), "rate", rate));
        return after + "_dropout";
    }

    static LayerSpec spec(String name, String type, List<String> inputs, Object... options) {
        Map<String, Object> o = new LinkedHashMap<>();
        for (int i = 0; i < options.length; i += 2) {
            o.put((String) options[i], options[i + 1]);
        }
        return new LayerSpec(name, type, inputs, o);
    }
}
