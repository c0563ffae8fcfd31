package org.traindeck.engine.model;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.data.InputSignature;
import org.traindeck.engine.model.graph.GraphProblemsException;
import org.traindeck.engine.model.graph.NodeProblem;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.TokenSequence;
import org.traindeck.engine.model.kernels.KernelUse;

/**
 * Compiles a layer graph to a DL4J graph configuration, node by node in dependency order: each node's kind checks its
 * inputs' shapes and builds its layer, DL4J's own rules give its output shape, and the first node that does not fit
 * is reported at its config path, in the user's words. The head follows from the task ({@link Heads}).
 */
public final class GraphCompiler {

    /** More parameters than this cannot be trained here whatever the memory: DL4J's arrays would not even be made. */
    static final long MAX_PARAMETERS = 2_000_000_000L;

    static final List<String> RESERVED = List.of(Heads.PROJECTION, Heads.OUTPUT);

    private final KernelUse kernels;
    private final GraphNodes graphNodes;

    public GraphCompiler(LayerKinds kinds) {
        this(kinds, KernelUse.OWN);
    }

    /** @param kernels whether the nodes may use TrainDeck's CPU kernels */
    public GraphCompiler(LayerKinds kinds, KernelUse kernels) {
        this.kernels = kernels;
        this.graphNodes = new GraphNodes(kinds, kernels);
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
        Map<String, InputType> types = inputTypes(input);
        long parameters = 0;
        for (int i : NodeOrder.of(layers)) {
            parameters = addLayer(g, layers, i, types, parameters);
        }
        addHead(g, layers, head, input, types, ownHead);
        g.setInputTypes(input.types());
        g.setOutputs(Heads.OUTPUT);
        try {
            return g.build();
        } catch (RuntimeException e) {
            throw problem("model", "DL4J cannot build this graph: " + rootMessage(e));
        }
    }

    private static Map<String, InputType> inputTypes(ModelInput input) {
        Map<String, InputType> types = new HashMap<>();
        if (input.named().isEmpty()) {
            types.put(Heads.INPUT, input.tokens() ? tokens(input.input()) : input.input());
        }
        for (InputSignature in : input.named()) {
            types.put(in.name(), in.tokens() ? tokens(in.inputType()) : in.inputType());
        }
        return types;
    }

    /**
     * Adds layer {@code i} (the nodes a reference block is spelled in, where it is one), its output type to {@code
     * types}. Returns the model's parameter count with it.
     */
    private long addLayer(
            ComputationGraphConfiguration.GraphBuilder g,
            List<LayerSpec> layers,
            int i,
            Map<String, InputType> types,
            long parametersBefore) {
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
        List<String> inputs = NodeOrder.inputsOf(layers, i);
        List<LayerSpec> nodes = ReferenceBlock.applies(spec, kernels) && types.get(inputs.get(0)) != null
                ? ReferenceBlock.spell(spec, inputs.get(0), types.get(inputs.get(0)))
                : List.of(spec);
        long parameters = parametersBefore;
        for (LayerSpec node : nodes) {
            parameters += graphNodes.add(g, node, node == spec ? inputs : node.inputs(), types, at, who);
            if (parameters > MAX_PARAMETERS) {
                throw problem(
                        at,
                        who + "brings the model to " + parameters + " parameters, more than " + MAX_PARAMETERS
                                + " can be trained here: use fewer units or filters, or down-sample before it");
            }
        }
        return parameters;
    }

    private void addHead(
            ComputationGraphConfiguration.GraphBuilder g,
            List<LayerSpec> layers,
            ModelConfig.Head head,
            ModelInput input,
            Map<String, InputType> types,
            boolean ownHead) {
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
    }

    private static TokenSequence tokens(InputType in) {
        InputType.InputTypeRecurrent r = (InputType.InputTypeRecurrent) in;
        return new TokenSequence(r.getSize(), r.getTimeSeriesLength());
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

    static GraphProblemsException problem(String path, String message) {
        return new GraphProblemsException(List.of(new NodeProblem(path, message)));
    }
}
