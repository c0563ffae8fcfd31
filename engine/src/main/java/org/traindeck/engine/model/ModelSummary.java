package org.traindeck.engine.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.data.InputSignature;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.conv.SyncBatchNorm;
import org.traindeck.engine.model.kernels.embedding.PatchEmbedding3DKernel;
import org.traindeck.engine.model.kernels.embedding.Unpatch3DKernel;
import org.traindeck.engine.model.kernels.transformer.TransformerBlock;
import org.traindeck.engine.model.nodes.RecomputingLayer;

/**
 * The table Keras' and Lightning's users expect of a model: each node, its type, its inputs, its output shape and its
 * parameters, in the order data flows; read from the compiled DL4J graph, so it holds for every kind of model.
 */
public record ModelSummary(List<Row> rows, long parameters) {

    /** One node: the head's layers are "head" and "output". */
    public record Row(String name, String type, List<String> inputs, String outputShape, long parameters) {}

    public static ModelSummary of(ComputationGraphConfiguration conf, ModelInput input, ModelConfig model) {
        Map<String, String> configTypes = new HashMap<>();
        Set<String> frozen = new HashSet<>();
        ModelConfig.Graph graph = ModelCompiler.expanded(model);
        if (graph != null) {
            for (LayerSpec s : graph.layers()) {
                configTypes.put(s.name(), s.type());
                if (Boolean.FALSE.equals(s.options().get("trainable"))) {
                    frozen.addAll(ModelCompiler.layerNames(s));
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        Map<String, InputType> types;
        if (input.named().isEmpty()) {
            types = conf.clone().getLayerActivationTypes(input.input());
            rows.add(new Row(ModelCompiler.INPUT, "input", List.of(), inputShape(input.input(), input.tokens()), 0));
        } else {
            types = conf.clone().getLayerActivationTypes(input.types());
            for (InputSignature in : input.named()) {
                rows.add(new Row(in.name(), "input", List.of(), inputShape(in.inputType(), in.tokens()), 0));
            }
        }
        long total = 0;
        for (String name : order(conf)) {
            GraphVertex v = conf.getVertices().get(name);
            long params = v.numParams(true);
            total += params;
            String type = configTypes.getOrDefault(name, typeOf(v));
            if (v instanceof LayerVertex l && l.getLayerConf().getLayer() instanceof SyncBatchNorm) {
                // synchronized across devices: the layer is DL4J's BatchNormalization otherwise
                type = configTypes.getOrDefault(name, "BatchNormalization") + " (sync)";
            }
            if (recomputes(v)) {
                // gradient checkpointing: what the fit estimate counts for this node depends on it
                type += " (recompute)";
            }
            if (frozen.contains(name)) {
                // "trainable": false: its parameters never change
                type += " (frozen)";
            }
            InputType out = types.get(name);
            rows.add(new Row(
                    name,
                    type,
                    conf.getVertexInputs().getOrDefault(name, List.of()),
                    out == null ? "?" : Shapes.dims(out),
                    params));
        }
        return new ModelSummary(List.copyOf(rows), total);
    }

    private static String inputShape(InputType type, boolean tokens) {
        return tokens && type instanceof InputType.InputTypeRecurrent r
                ? "[" + r.getTimeSeriesLength() + " token ids < " + r.getSize() + "]"
                : Shapes.dims(type);
    }

    private static boolean recomputes(GraphVertex v) {
        return v instanceof LayerVertex l
                && (l.getLayerConf().getLayer() instanceof RecomputingLayer
                        || l.getLayerConf().getLayer() instanceof TransformerBlock b && b.isRecompute()
                        || l.getLayerConf().getLayer() instanceof PatchEmbedding3DKernel p && p.isRecompute()
                        || l.getLayerConf().getLayer() instanceof Unpatch3DKernel u && u.isRecompute());
    }

    private static String typeOf(GraphVertex v) {
        if (v instanceof LayerVertex l) {
            return l.getLayerConf().getLayer().getClass().getSimpleName();
        }
        return v.getClass().getSimpleName();
    }

    /** Vertex names so that each comes after its inputs, otherwise in the order they were added. */
    private static List<String> order(ComputationGraphConfiguration conf) {
        List<String> names = new ArrayList<>(conf.getVertices().keySet());
        Map<String, Integer> waiting = new HashMap<>();
        Map<String, List<String>> takers = new HashMap<>();
        for (String n : names) {
            List<String> inputs = conf.getVertexInputs().getOrDefault(n, List.of());
            int count = 0;
            for (String in : inputs) {
                if (conf.getVertices().containsKey(in)) {
                    count++;
                    takers.computeIfAbsent(in, k -> new ArrayList<>()).add(n);
                }
            }
            waiting.put(n, count);
        }
        List<String> out = new ArrayList<>();
        Deque<String> ready = new ArrayDeque<>();
        names.stream().filter(n -> waiting.get(n) == 0).forEach(ready::add);
        while (!ready.isEmpty()) {
            String n = ready.poll();
            out.add(n);
            for (String t : takers.getOrDefault(n, List.of())) {
                if (waiting.merge(t, -1, Integer::sum) == 0) {
                    ready.add(t);
                }
            }
        }
        return out;
    }

    /** The table as text, for the command line. */
    public String toText() {
        List<String[]> cells = new ArrayList<>();
        cells.add(new String[] {"node", "type", "inputs", "output", "parameters"});
        for (Row r : rows) {
            cells.add(new String[] {
                r.name(),
                r.type(),
                String.join(", ", r.inputs()),
                r.outputShape(),
                String.format(Locale.ROOT, "%,d", r.parameters())
            });
        }
        int[] width = new int[5];
        for (String[] c : cells) {
            for (int i = 0; i < 5; i++) {
                width[i] = Math.max(width[i], c[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] c : cells) {
            for (int i = 0; i < 5; i++) {
                String cell = i == 4
                        ? " ".repeat(width[i] - c[i].length()) + c[i]
                        : c[i] + " ".repeat(width[i] - c[i].length());
                sb.append(cell).append(i < 4 ? "  " : "\n");
            }
        }
        sb.append(String.format(Locale.ROOT, "total: %,d parameters%n", parameters));
        return sb.toString();
    }
}
