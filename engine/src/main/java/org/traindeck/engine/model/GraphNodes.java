package org.traindeck.engine.model;

import static org.traindeck.engine.model.GraphCompiler.problem;
import static org.traindeck.engine.model.GraphCompiler.rootMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.model.kernels.transformer.BlockInputsVertex;

/**
 * Adds one node to a DL4J graph: its kind checks the inputs' shapes and builds its layer or vertex, DL4J's own rules
 * give its output shape, and a node that does not fit is reported at its config path.
 */
final class GraphNodes {

    private final LayerKinds kinds;
    private final KernelUse kernels;

    GraphNodes(LayerKinds kinds, KernelUse kernels) {
        this.kinds = kinds;
        this.kernels = kernels;
    }

    /** Checks and adds one node; its output type goes to {@code types}. Returns its parameter count. */
    long add(
            ComputationGraphConfiguration.GraphBuilder g,
            LayerSpec spec,
            List<String> inputNames,
            Map<String, InputType> types,
            String at,
            String who) {
        LayerKind kind = kinds.get(spec.type());
        if (kind == null) {
            throw new IllegalStateException(
                    "the schema allows layer type " + spec.type() + " but no layer class builds it");
        }
        if (inputNames.size() < kind.minInputs() || inputNames.size() > kind.maxInputs()) {
            throw problem(at, who + "(" + spec.type() + ") takes " + count(kind) + ", not " + inputNames.size());
        }
        List<InputType> in = new ArrayList<>();
        inputNames.forEach(n -> in.add(types.get(n)));
        Map<String, String> sides = spec.sideInputs();
        sides.values().forEach(n -> in.add(types.get(n)));
        InputType out;
        long parameters = 0;
        try {
            Built built = kind.build(new NodeOptions(spec.type(), spec.options(), kernels), in);
            // after the kind's own check, which may say it in its words: ids are no features (DL4J would take them for
            // one)
            if (!kind.readsTokenIds() && in.stream().anyMatch(t -> t instanceof TokenSequence)) {
                throw new ShapeError("takes features but gets " + Shapes.describe(in.get(0))
                        + ": add an \"embedding\" before it to turn each token id into a vector");
            }
            if (built.layer() != null && !sides.isEmpty()) {
                out = addPacked(g, spec.name(), built.layer(), inputNames, sides, in);
                parameters = built.layer().initializer().numParams(built.layer());
            } else if (built.layer() != null) {
                out = outputOf(built.layer(), in.get(0));
                parameters = built.layer().initializer().numParams(built.layer());
                g.addLayer(spec.name(), built.layer(), inputNames.toArray(String[]::new));
            } else {
                out = built.vertex().getOutputType(-1, in.toArray(InputType[]::new));
                g.addVertex(spec.name(), built.vertex(), inputNames.toArray(String[]::new));
            }
            if (built.outputRule() != null) {
                out = built.outputRule().apply(in.get(0));
            }
        } catch (ShapeError e) {
            throw problem(e.option() == null ? at : at + "." + e.option(), who + e.getMessage());
        } catch (RuntimeException e) {
            // DL4J's own shape rules, for what the kind does not check itself
            throw problem(at, who + "does not fit its input " + describeAll(in) + ": " + rootMessage(e));
        }
        types.put(spec.name(), out);
        return parameters;
    }

    /**
     * A layer that reads side inputs (a condition, a context) as DL4J's one input: a vertex {@code <name>_packed}
     * packs them with its tokens ({@link BlockInputsVertex}), the layer reads that. Returns the layer's output type.
     */
    private static InputType addPacked(
            ComputationGraphConfiguration.GraphBuilder g,
            String name,
            Layer layer,
            List<String> inputNames,
            Map<String, String> sides,
            List<InputType> in) {
        BlockInputsVertex vertex = new BlockInputsVertex(sides.containsKey("condition"), sides.containsKey("context"));
        List<String> packedNames = new ArrayList<>(inputNames);
        packedNames.addAll(sides.values());
        String packed = name + "_packed";
        g.addVertex(packed, vertex, packedNames.toArray(String[]::new));
        InputType packedType = vertex.getOutputType(-1, in.toArray(InputType[]::new));
        g.addLayer(name, layer, packed);
        return outputOf(layer, packedType);
    }

    /** A layer's output for one input, as DL4J infers it when it builds the graph (preprocessor included). */
    private static InputType outputOf(Layer layer, InputType in) {
        InputPreProcessor pre = layer.getPreProcessorForInputType(in);
        InputType t = pre == null ? in : pre.getOutputType(in);
        layer.setNIn(t, true);
        return layer.getOutputType(-1, t);
    }

    private static String count(LayerKind kind) {
        if (kind.minInputs() == kind.maxInputs()) {
            return kind.minInputs() == 1 ? "one input" : kind.minInputs() + " inputs";
        }
        return kind.minInputs() + " or more inputs";
    }

    private static String describeAll(List<InputType> in) {
        return String.join(" and ", in.stream().map(Shapes::describe).toList());
    }
}
