package org.traindeck.engine.profile;

import java.lang.reflect.Field;
import java.util.LinkedList;
import java.util.Map;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The parameter gradients of one backward pass, gathered as the walk goes from the outputs back and laid out in
 * DL4J's order, then handed to the network where its updater step reads them.
 */
final class GradientCollector {

    private record Entry(String name, INDArray gradient, Character order) {}

    private final LinkedList<Entry> gradients = new LinkedList<>();

    /** Adds a vertex's parameter gradients in front, in DL4J's order (the walk goes from the outputs back). */
    void add(String vertex, Gradient g) {
        LinkedList<Entry> mine = new LinkedList<>();
        for (Map.Entry<String, INDArray> e : g.gradientForVariable().entrySet()) {
            mine.addFirst(new Entry(vertex + "_" + e.getKey(), e.getValue(), g.flatteningOrderForVariable(e.getKey())));
        }
        for (Entry e : mine) {
            gradients.addFirst(e);
        }
    }

    /** The gradients as the network's gradient, over its gradient view: {@link ComputationGraph#gradient()} returns it. */
    void setInto(ComputationGraph net) {
        Gradient gradient = new DefaultGradient(net.getGradientsViewArray());
        for (Entry e : gradients) {
            gradient.setGradientFor(e.name(), e.gradient(), e.order());
        }
        setGradient(net, gradient);
    }

    /** DL4J keeps the gradient of the last pass in a field with no setter; its updater step reads it from there. */
    private static void setGradient(ComputationGraph net, Gradient gradient) {
        try {
            Field field = ComputationGraph.class.getDeclaredField("gradient");
            field.setAccessible(true);
            field.set(net, gradient);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this DL4J version's ComputationGraph has no gradient field", e);
        }
    }
}
