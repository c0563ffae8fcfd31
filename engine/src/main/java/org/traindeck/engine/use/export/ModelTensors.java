package org.traindeck.engine.use.export;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.wrapper.BaseWrapperLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.graph.vertex.GraphVertex;
import org.nd4j.linalg.activations.impl.ActivationIdentity;

/**
 * A built network's parameters as named tensors in PyTorch's layouts, and its graph as JSON: every node in the order it
 * runs, with its DL4J layer or vertex, its inputs, its activation and the tensors it owns.
 */
public record ModelTensors(List<NamedTensor> tensors, ObjectNode graph) {

    static final ObjectMapper JSON = new ObjectMapper();
    public static final String FORMAT = "traindeck-export";
    public static final int VERSION = 1;

    /**
     * @param model the TrainDeck model section the network was built from (put into the graph JSON), or null
     * @throws ExportException naming a node export cannot name, or two tensors with one name
     */
    public static ModelTensors of(ComputationGraph network, NamingTable table, JsonNode model) {
        List<NamedTensor> tensors = new ArrayList<>();
        ObjectNode graph = JSON.createObjectNode();
        graph.put("format", FORMAT).put("version", VERSION);
        graph.set("inputs", strings(network.getConfiguration().getNetworkInputs()));
        graph.set("outputs", strings(network.getConfiguration().getNetworkOutputs()));
        ArrayNode nodes = graph.putArray("nodes");
        Set<String> names = new HashSet<>();
        GraphVertex[] vertices = network.getVertices();
        for (int i : network.topologicalSortOrder()) {
            GraphVertex v = vertices[i];
            if (v.isInputVertex()) {
                continue;
            }
            String name = v.getVertexName();
            ObjectNode node = nodes.addObject();
            node.put("name", name);
            node.set(
                    "inputs",
                    strings(network.getConfiguration().getVertexInputs().get(name)));
            ObjectNode owned = JSON.createObjectNode();
            if (v.hasLayer()) {
                Layer layer = v.getLayer().conf().getLayer();
                node.put("layer", layer.getClass().getSimpleName());
                Layer inner = layer instanceof BaseWrapperLayer w ? w.getUnderlying() : layer;
                if (inner instanceof BatchNormalization b
                        && b.getActivationFn() != null
                        && !(b.getActivationFn() instanceof ActivationIdentity)) {
                    // DL4J 1.0.0-M2.1's BatchNormalization never applies the activation it is configured with
                    node.put("activation", "identity")
                            .put("configuredActivation", b.getActivationFn().toString());
                } else if (inner instanceof BaseLayer b && b.getActivationFn() != null) {
                    node.put("activation", b.getActivationFn().toString());
                }
                if (TransposedConvolutionArguments.isTransposed(inner)
                        && TransposedConvolutionArguments.whyNot(name, (ConvolutionLayer) inner) == null) {
                    node.set("torch", TransposedConvolutionArguments.of((ConvolutionLayer) inner));
                }
                for (NamedTensor t : table.tensors(name, layer, v.getLayer().paramTable())) {
                    if (!names.add(t.name())) {
                        throw new ExportException("two tensors would be named '" + t.name() + "' (node '" + name
                                + "'): rename the node so that no node's name is another's followed by a dot");
                    }
                    tensors.add(t);
                    ArrayNode shape = owned.putArray(t.name());
                    for (long d : t.shape()) {
                        shape.add(d);
                    }
                }
            } else {
                node.put("vertex", v.getClass().getSimpleName());
            }
            node.set("tensors", owned);
        }
        if (model != null) {
            graph.set("model", model);
        }
        return new ModelTensors(List.copyOf(tensors), graph);
    }

    private static ArrayNode strings(List<String> values) {
        ArrayNode a = JSON.createArrayNode();
        if (values != null) {
            values.forEach(a::add);
        }
        return a;
    }
}
