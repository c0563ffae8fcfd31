package org.traindeck.engine.train.health;

import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BaseLayer;
import org.deeplearning4j.nn.conf.layers.wrapper.BaseWrapperLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.activations.impl.ActivationReLU;
import org.nd4j.linalg.activations.impl.ActivationReLU6;
import org.nd4j.linalg.activations.impl.ActivationThresholdedReLU;
import org.traindeck.engine.model.Frozen;

/**
 * The graph's layer nodes in topological order (their DL4J layer names are TrainDeck's node names): which have
 * parameters, under which parameter keys, and which end in a ReLU-like activation (whose zero outputs are dead units).
 */
public final class LayerNodes {

    /**
     * @param name          the node (DL4J layer) name
     * @param params        its parameter keys (W, b, ...), BatchNorm's running statistics left out: they are no gradient
     * @param reluLike      its output goes through a ReLU-like activation, so an exactly zero output is an inactive unit
     */
    public record Node(String name, List<String> params, boolean reluLike) {
        public boolean hasParams() {
            return !params.isEmpty();
        }
    }

    private final List<Node> nodes;

    private LayerNodes(List<Node> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    public static LayerNodes of(ComputationGraph net) {
        List<Node> out = new ArrayList<>();
        for (String name : net.getConfiguration().getTopologicalOrderStr()) {
            Layer layer = net.getLayer(name);
            if (layer == null) {
                continue; // a vertex (add, merge, reshape): no parameters, and its output is its inputs'
            }
            List<String> params = new ArrayList<>();
            // a frozen node is not learning by design: no figures, no warnings about it
            for (String p :
                    Frozen.is(layer) ? List.<String>of() : layer.paramTable().keySet()) {
                if (layer.updaterDivideByMinibatch(p)) {
                    params.add(p);
                }
            }
            boolean relu = reluLike(layer.conf().getLayer());
            if (!params.isEmpty() || relu) {
                out.add(new Node(name, params, relu));
            }
        }
        return new LayerNodes(out);
    }

    public List<Node> all() {
        return nodes;
    }

    /** The nodes with parameters, first to last. */
    public List<Node> withParams() {
        return nodes.stream().filter(Node::hasParams).toList();
    }

    private static boolean reluLike(org.deeplearning4j.nn.conf.layers.Layer conf) {
        IActivation fn = null;
        if (conf instanceof BaseWrapperLayer wrapper) {
            return reluLike(wrapper.getUnderlying());
        }
        if (conf instanceof ActivationLayer a) {
            fn = a.getActivationFn();
        } else if (conf instanceof BaseLayer base) {
            fn = base.getActivationFn();
        }
        return fn instanceof ActivationReLU || fn instanceof ActivationReLU6 || fn instanceof ActivationThresholdedReLU;
    }
}
