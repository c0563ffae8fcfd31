package org.traindeck.engine.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.data.InputSignature;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.GraphProblemsException;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.NodeProblem;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.graph.TokenSequence;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.model.kernels.transformer.BlockInputsVertex;

/**
 * Compiles a layer graph to a DL4J graph configuration, node by node in dependency order: each node's kind checks its
 * inputs' shapes and builds its layer, DL4J's own rules give its output shape, and the first node that does not fit
 * is reported at its config path, in the user's words. The head follows from the task ({@link Heads}).
 */
public final class GraphCompiler {

    /** More parameters than this cannot be trained here whatever the memory: DL4J's arrays would not even be made. */
    static final long MAX_PARAMETERS = 2_000_000_000L;

    static final List<String> RESERVED = List.of(Heads.PROJECTION, Heads.OUTPUT);

    private final LayerKinds kinds;
    private final KernelUse kernels;

    public GraphCompiler(LayerKinds kinds) {
        this(kinds, KernelUse.OWN);
    }

    /** @param kernels whether the nodes may use TrainDeck's CPU kernels */
    public GraphCompiler(LayerKinds kinds, KernelUse kernels) {
        this.kinds = kinds;
        this.kernels = kernels;
    }

    /**
     * Adds the graph's nodes and head to {@code g} (which has the inputs {@code input.names()} and no input types yet).
     *
     * @throws GraphProblemsException naming the first node that does not fit
     */
    public ComputationGraphConfiguration compile(
            ComputationGraphConfiguration.GraphBuilder g,
            List<LayerSpec> layers,
            ModelConfig.Head head,
            ModelInput input) {
        return compile(g, layers, head, input, true);
    }

    /**
     * As {@link #compile(ComputationGraphConfiguration.GraphBuilder, List, ModelConfig.Head, ModelInput)}.
     *
     * @param ownHead whether the head may run on TrainDeck's kernel (where the kernels are used at all)
     */
    public ComputationGraphConfiguration compile(
            ComputationGraphConfiguration.GraphBuilder g,
            List<LayerSpec> layers,
            ModelConfig.Head head,
            ModelInput input,
            boolean ownHead) {
        Map<String, InputType> types = new HashMap<>();
        if (input.named().isEmpty()) {
            types.put(Heads.INPUT, input.tokens() ? tokens(input.input()) : input.input());
        }
        for (InputSignature in : input.named()) {
            types.put(in.name(), in.tokens() ? tokens(in.inputType()) : in.inputType());
        }
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < layers.size(); i++) {
            index.put(layers.get(i).name(), i);
        }
        long parameters = 0;
        for (int i : order(layers, index)) {
            LayerSpec spec = layers.get(i);
            String at = "model.layers[" + i + "]";
            String who = "layers[" + i + "] '" + spec.name() + "' ";
            if (RESERVED.contains(spec.name())) {
                throw problem(
                        at + ".name",
                        "\"" + spec.name() + "\" is the name of the head's layer; give this layer another name");
            }
            if (!spec.sideInputs().isEmpty() && !ReferenceBlock.ownKernelRuns(spec, kernels)) {
                throw problem(at, who + ReferenceBlock.refusal(spec));
            }
            List<LayerSpec> nodes = ReferenceBlock.applies(spec, kernels)
                            && types.get(inputsOf(layers, i).get(0)) != null
                    ? ReferenceBlock.spell(
                            spec,
                            inputsOf(layers, i).get(0),
                            types.get(inputsOf(layers, i).get(0)))
                    : List.of(spec);
            for (LayerSpec node : nodes) {
                parameters += addNode(g, node, node == spec ? inputsOf(layers, i) : node.inputs(), types, at, who);
                if (parameters > MAX_PARAMETERS) {
                    throw problem(
                            at,
                            who + "brings the model to " + parameters + " parameters, more than " + MAX_PARAMETERS
                                    + " can be trained here: use fewer units or filters, or down-sample before it");
                }
            }
        }
        String last = layers.get(layers.size() - 1).name();
        try {
            Heads.add(
                    g,
                    last,
                    types.get(last),
                    head,
                    input,
                    ownHead && kernels.kernelFor(null) && Nd4j.getEnvironment().isCPU());
        } catch (ShapeError e) {
            throw problem(
                    "model.layers[" + (layers.size() - 1) + "]",
                    "the head takes the output of '" + last + "': " + e.getMessage());
        }
        g.setInputTypes(input.types());
        g.setOutputs(Heads.OUTPUT);
        try {
            return g.build();
        } catch (RuntimeException e) {
            throw problem("model", "DL4J cannot build this graph: " + rootMessage(e));
        }
    }

    /** Checks and adds one node; its output type goes to {@code types}. Returns its parameter count. */
    private long addNode(
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

    private static TokenSequence tokens(InputType in) {
        InputType.InputTypeRecurrent r = (InputType.InputTypeRecurrent) in;
        return new TokenSequence(r.getSize(), r.getTimeSeriesLength());
    }

    /** A layer's output for one input, as DL4J infers it when it builds the graph (preprocessor included). */
    static InputType outputOf(Layer layer, InputType in) {
        InputPreProcessor pre = layer.getPreProcessorForInputType(in);
        InputType t = pre == null ? in : pre.getOutputType(in);
        layer.setNIn(t, true);
        return layer.getOutputType(-1, t);
    }

    static List<String> inputsOf(List<LayerSpec> layers, int i) {
        LayerSpec spec = layers.get(i);
        if (spec.inputs() != null) {
            return spec.inputs();
        }
        return List.of(i == 0 ? Heads.INPUT : layers.get(i - 1).name());
    }

    /** Node indices so that every node comes after its inputs, in config order where free (the config checked there is no cycle). */
    private static List<Integer> order(List<LayerSpec> layers, Map<String, Integer> index) {
        int n = layers.size();
        int[] waiting = new int[n];
        List<List<Integer>> takers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            takers.add(new ArrayList<>());
        }
        for (int i = 0; i < n; i++) {
            List<String> reads = new ArrayList<>(inputsOf(layers, i));
            reads.addAll(layers.get(i).sideInputs().values());
            for (String in : reads) {
                Integer j = index.get(in);
                if (j != null) {
                    waiting[i]++;
                    takers.get(j).add(i);
                }
            }
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int i = 0; i < n; i++) {
            if (waiting[i] == 0) {
                ready.add(i);
            }
        }
        List<Integer> out = new ArrayList<>(n);
        while (!ready.isEmpty()) {
            int i = ready.poll();
            out.add(i);
            for (int t : takers.get(i)) {
                if (--waiting[t] == 0) {
                    ready.add(t);
                }
            }
        }
        if (out.size() < n) {
            throw new IllegalStateException("the layer graph has a cycle the config reader did not report");
        }
        return out;
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

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage() == null ? t.toString() : t.getMessage();
        int cut = m.indexOf('\n');
        return cut > 0 ? m.substring(0, cut) : m;
    }

    private static GraphProblemsException problem(String path, String message) {
        return new GraphProblemsException(List.of(new NodeProblem(path, message)));
    }
}
