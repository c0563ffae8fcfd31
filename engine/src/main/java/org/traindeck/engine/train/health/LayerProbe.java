package org.traindeck.engine.train.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.events.HistogramEvent;

/**
 * Per-node norms and histograms taken inside one optimizer step on the model that holds the summed gradient (the
 * master): the gradient before clipping, the update the optimizer made of it, the parameters before and after.
 * One probe serves one step, called in that order; it reads views and copies only what histograms need.
 */
public final class LayerProbe {

    private final ComputationGraph net;
    private final LayerNodes nodes;
    private final boolean histograms;
    private final Map<String, double[]> norms = new LinkedHashMap<>();
    private final List<LayerHistogram> taken = new ArrayList<>();

    // norms[node] = {grad, param before, update, param after}
    private static final int GRAD = 0;
    private static final int BEFORE = 1;
    private static final int UPDATE = 2;
    private static final int AFTER = 3;

    public LayerProbe(ComputationGraph net, LayerNodes nodes, boolean histograms) {
        this.net = net;
        this.nodes = nodes;
        this.histograms = histograms;
    }

    /** The mean gradient is the gradient view times {@code scale} (1 / examples when the view still holds the sum). */
    public void gradient(double scale) {
        Gradient g = net.gradient();
        for (LayerNodes.Node n : nodes.withParams()) {
            List<INDArray> grads = new ArrayList<>(n.params().size());
            for (String p : n.params()) {
                INDArray v = g.getGradientFor(n.name() + "_" + p);
                if (v != null) {
                    grads.add(v);
                }
            }
            double[] row =
                    norms.computeIfAbsent(n.name(), k -> new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN});
            row[GRAD] = norm(grads) * Math.abs(scale);
            row[BEFORE] = norm(params(n));
            if (histograms && !grads.isEmpty()) {
                taken.add(new LayerHistogram(n.name(), HistogramEvent.GRADIENTS, HistogramData.of(grads, scale)));
            }
        }
    }

    /** The gradient view now holds the update the optimizer computed (what is subtracted from the parameters). */
    public void update() {
        Gradient g = net.gradient();
        for (LayerNodes.Node n : nodes.withParams()) {
            List<INDArray> updates = new ArrayList<>(n.params().size());
            for (String p : n.params()) {
                INDArray v = g.getGradientFor(n.name() + "_" + p);
                if (v != null) {
                    updates.add(v);
                }
            }
            double[] row = norms.get(n.name());
            if (row != null) {
                row[UPDATE] = norm(updates);
            }
        }
    }

    /** The parameters are those after the step. */
    public void after() {
        for (LayerNodes.Node n : nodes.withParams()) {
            List<INDArray> params = params(n);
            double[] row = norms.get(n.name());
            if (row != null) {
                row[AFTER] = norm(params);
            }
            if (histograms) {
                taken.add(new LayerHistogram(n.name(), HistogramEvent.WEIGHTS, HistogramData.of(params, 1)));
            }
        }
    }

    /** The step's figures, node by node (activation figures NaN: {@link ActivationProbe} adds them). */
    public List<LayerFigures> figures() {
        List<LayerFigures> out = new ArrayList<>(norms.size());
        for (LayerNodes.Node n : nodes.all()) {
            double[] row = norms.get(n.name());
            if (row == null) {
                out.add(new LayerFigures(
                        n.name(),
                        Double.NaN,
                        Double.NaN,
                        Double.NaN,
                        Double.NaN,
                        Double.NaN,
                        Double.NaN,
                        n.reluLike()));
                continue;
            }
            double ratio = row[BEFORE] > 0 ? row[UPDATE] / row[BEFORE] : Double.NaN;
            out.add(new LayerFigures(
                    n.name(), row[AFTER], row[GRAD], ratio, Double.NaN, Double.NaN, Double.NaN, n.reluLike()));
        }
        return out;
    }

    public List<LayerHistogram> histograms() {
        return taken;
    }

    private List<INDArray> params(LayerNodes.Node n) {
        Layer layer = net.getLayer(n.name());
        List<INDArray> out = new ArrayList<>(n.params().size());
        for (String p : n.params()) {
            out.add(layer.getParam(p));
        }
        return out;
    }

    private static double norm(List<INDArray> arrays) {
        if (arrays.isEmpty()) {
            return Double.NaN;
        }
        double squares = 0;
        for (INDArray a : arrays) {
            double n = a.norm2Number().doubleValue();
            squares += n * n;
        }
        return Math.sqrt(squares);
    }
}
