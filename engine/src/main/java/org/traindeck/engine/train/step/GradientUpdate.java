package org.traindeck.engine.train.step;

import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.train.health.LayerProbe;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One optimizer step on the master model from the summed gradient of a global batch, in its gradient view: divide by
 * the number of examples (as DL4J's own fit does), clip the global L2 norm, then let DL4J's updater (Adam, SGD, ...)
 * turn the gradient into the update and subtract it. BatchNorm running statistics are updates, not gradients: they
 * are averaged over the step's micro-batches (of every device) and never clipped. A step whose loss or gradient is
 * not finite is not applied: the parameters and the optimizer state stay as they were.
 */
public final class GradientUpdate {

    /** The step's mean loss, the gradient's L2 norm before clipping, the examples used, and whether it was applied. */
    public record Result(double loss, double gradNorm, int examples, boolean clipped, boolean applied) {}

    private final ComputationGraph net;
    private List<INDArray> statViews;

    public GradientUpdate(ComputationGraph net) {
        this.net = net;
    }

    /**
     * @param lossSum      the loss summed over the step's examples
     * @param microBatches how many micro-batches the gradient view sums (BatchNorm statistics are averaged over them)
     * @param wantNorm     compute the gradient's norm even when nothing needs it (it is reported): one more pass
     * @param poison       make this step's loss and gradient NaN (fault injection for tests)
     * @param probe        takes per-layer figures of this step (null: none)
     */
    public Result apply(double lossSum, int examples, int microBatches, int iteration, int epoch, double clipNorm, boolean wantNorm,
                 boolean poison, LayerProbe probe) {
        INDArray flat = net.getGradientsViewArray();
        if (poison) {
            // what a diverged step looks like: the loss and the gradient are no longer numbers
            lossSum = Double.NaN;
            flat.assign(Double.NaN);
        }
        Gradient gradient = net.gradient();
        List<INDArray> stats = statViews(gradient);
        double loss = lossSum / examples;
        if (!Double.isFinite(loss)) {
            net.clearLayersStates();
            return new Result(loss, Double.NaN, examples, false, false);
        }
        double norm;
        boolean clipped = false;
        int updaterBatch = 1;
        if (stats.isEmpty() && clipNorm <= 0) {
            // nothing to do between division and update: DL4J's updater divides, as in its own fit (one pass, not two)
            norm = wantNorm ? flat.norm2Number().doubleValue() / examples : Double.NaN;
            if (wantNorm && !Double.isFinite(norm)) {
                net.clearLayersStates();
                return new Result(loss, norm, examples, false, false);
            }
            updaterBatch = examples;
            if (probe != null) {
                probe.gradient(1.0 / examples);
            }
        } else {
            // Set the statistics aside so that division and clipping touch gradients only.
            List<INDArray> saved = new ArrayList<>(stats.size());
            for (INDArray s : stats) {
                saved.add(s.div(microBatches));
                s.assign(0);
            }
            flat.divi(examples);
            norm = flat.norm2Number().doubleValue();
            if (probe != null && Double.isFinite(norm)) {
                probe.gradient(1);
            }
            if (Double.isFinite(norm) && clipNorm > 0 && norm > clipNorm) {
                flat.muli(clipNorm / norm);
                clipped = true;
            }
            for (int i = 0; i < stats.size(); i++) {
                stats.get(i).assign(saved.get(i));
            }
            if (!Double.isFinite(norm)) {
                net.clearLayersStates();
                return new Result(loss, norm, examples, false, false);
            }
        }
        // batch size 1 when the division by the example count is already done above
        net.getUpdater().update(gradient, iteration, epoch, updaterBatch, LayerWorkspaceMgr.noWorkspaces());
        if (probe != null) {
            probe.update();
        }
        INDArray params = net.params();
        params.subi(flat.reshape(params.shape()));
        net.getConfiguration().setIterationCount(iteration + 1);
        net.applyConstraints(iteration, epoch);
        if (probe != null) {
            probe.after();
        }
        net.clearLayersStates();
        return new Result(loss, norm, examples, clipped, true);
    }

    private List<INDArray> statViews(Gradient gradient) {
        if (statViews == null) {
            List<INDArray> views = new ArrayList<>();
            for (Map.Entry<String, INDArray> e : gradient.gradientForVariable().entrySet()) {
                String key = e.getKey();
                int cut = key.lastIndexOf('_');
                if (!net.getLayer(key.substring(0, cut)).updaterDivideByMinibatch(key.substring(cut + 1))) {
                    views.add(e.getValue());
                }
            }
            statViews = views;
        }
        return statViews;
    }
}
