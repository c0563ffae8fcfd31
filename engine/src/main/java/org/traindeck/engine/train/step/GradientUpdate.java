package org.traindeck.engine.train.step;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.Frozen;
import org.traindeck.engine.train.health.LayerProbe;

/**
 * One optimizer step on the master model from the summed gradient of a global batch, in its gradient view: divide by
 * the number of examples (as DL4J's own fit does), clip the global L2 norm, then let DL4J's updater (Adam, SGD, ...)
 * turn the gradient into the update and subtract it. BatchNorm running statistics are updates, not gradients: they
 * are averaged over the step's micro-batches (of every device) and never clipped. A frozen node's gradient (its
 * statistics too) is zeroed first. A step whose loss or gradient is not finite is not applied: the parameters and the
 * optimizer state stay as they were.
 */
public final class GradientUpdate {

    /** One part of a task cut in {@code parts} (each run once, possibly all at once on several threads). */
    interface PartTask {
        void run(int part, int parts);
    }

    /** Runs a {@link PartTask}'s parts and returns when every one is done. */
    interface Parts {
        Parts ONE = task -> task.run(0, 1);

        void run(PartTask task);
    }

    /** The step's mean loss, the gradient's L2 norm before clipping, the examples used, and whether it was applied. */
    public record Result(double loss, double gradNorm, int examples, boolean clipped, boolean applied) {}

    private final ComputationGraph net;
    private final boolean fuse;
    private final Parts parts;
    private List<INDArray> statViews;
    private List<INDArray> frozenViews;
    private FusedUpdate fused;
    private Object fusedFor;
    private Object fusedState;

    public GradientUpdate(ComputationGraph net) {
        this(net, true, Parts.ONE);
    }

    /** @param fuse whether the step may run as one fused pass ({@link FusedUpdate}); false: always DL4J's updater */
    GradientUpdate(ComputationGraph net, boolean fuse) {
        this(net, fuse, Parts.ONE);
    }

    /**
     * @param fuse  whether the step may run as one fused pass ({@link FusedUpdate}); false: always DL4J's updater
     * @param parts how the fused pass runs: in one part on the calling thread, or in parts on the replicas' threads
     */
    GradientUpdate(ComputationGraph net, boolean fuse, Parts parts) {
        this.net = net;
        this.fuse = fuse;
        this.parts = parts;
    }

    /**
     * @param lossSum      the loss summed over the step's examples
     * @param microBatches how many micro-batches the gradient view sums (BatchNorm statistics are averaged over them)
     * @param wantNorm     compute the gradient's norm even when nothing needs it (it is reported): one more pass
     * @param poison       make this step's loss and gradient NaN (fault injection for tests)
     * @param probe        takes per-layer figures of this step (null: none)
     */
    public Result apply(
            double lossSum,
            int examples,
            int microBatches,
            int iteration,
            int epoch,
            double clipNorm,
            boolean wantNorm,
            boolean poison,
            LayerProbe probe) {
        INDArray flat = net.getGradientsViewArray();
        double loss = zeroFrozenAndMeanLoss(flat, lossSum, examples, poison);
        Gradient gradient = net.gradient();
        List<INDArray> stats = statViews(gradient);
        if (!Double.isFinite(loss)) {
            net.clearLayersStates();
            return new Result(loss, Double.NaN, examples, false, false);
        }
        FusedUpdate one = probe == null ? fused() : null;
        if (one != null) {
            return fusedStep(
                    one,
                    flat,
                    stats,
                    loss,
                    examples,
                    microBatches,
                    iteration,
                    epoch,
                    clipNorm,
                    wantNorm || !stats.isEmpty());
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
            Scaled scaled = divideAndClip(flat, stats, examples, microBatches, clipNorm, probe);
            norm = scaled.norm();
            clipped = scaled.clipped();
            if (!Double.isFinite(norm)) {
                net.clearLayersStates();
                return new Result(loss, norm, examples, false, false);
            }
        }
        // batch size 1 when the division by the example count is already done above
        update(gradient, flat, iteration, epoch, updaterBatch, probe);
        return new Result(loss, norm, examples, clipped, true);
    }

    /** The step's mean loss, after zeroing the frozen nodes' gradients (and, with {@code poison}, making both NaN). */
    private double zeroFrozenAndMeanLoss(INDArray flat, double lossSum, int examples, boolean poison) {
        double sum = lossSum;
        if (poison) {
            // what a diverged step looks like: the loss and the gradient are no longer numbers
            sum = Double.NaN;
            flat.assign(Double.NaN);
        }
        for (INDArray frozen : frozenViews()) {
            frozen.assign(0);
        }
        return sum / examples;
    }

    /** The gradient's norm after division by the example count, and whether clipping then scaled it down. */
    private record Scaled(double norm, boolean clipped) {}

    /** Divides the gradient by the example count and clips it; batch-norm statistics are set aside meanwhile. */
    private static Scaled divideAndClip(
            INDArray flat, List<INDArray> stats, int examples, int microBatches, double clipNorm, LayerProbe probe) {
        List<INDArray> saved = new ArrayList<>(stats.size());
        for (INDArray s : stats) {
            saved.add(s.div(microBatches));
            s.assign(0);
        }
        flat.divi(examples);
        double norm = flat.norm2Number().doubleValue();
        if (probe != null && Double.isFinite(norm)) {
            probe.gradient(1);
        }
        boolean clipped = false;
        if (Double.isFinite(norm) && clipNorm > 0 && norm > clipNorm) {
            flat.muli(clipNorm / norm);
            clipped = true;
        }
        for (int i = 0; i < stats.size(); i++) {
            stats.get(i).assign(saved.get(i));
        }
        return new Scaled(norm, clipped);
    }

    /** DL4J's updater turns the gradient into the update, which is subtracted from the parameters. */
    private void update(
            Gradient gradient, INDArray flat, int iteration, int epoch, int updaterBatch, LayerProbe probe) {
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
    }

    /** The same step as one pass per updater block; the gradient view keeps the gradient (the update is not stored). */
    private Result fusedStep(
            FusedUpdate one,
            INDArray flat,
            List<INDArray> stats,
            double loss,
            int examples,
            int microBatches,
            int iteration,
            int epoch,
            double clipNorm,
            boolean wantNorm) {
        double norm = Double.NaN;
        if (clipNorm > 0 || wantNorm && !one.coversAll()) {
            norm = norm(flat, stats) / examples;
        } else if (wantNorm) {
            // only reported and checked for being finite: the fused plan's own sum, far cheaper than ND4J's norm2
            norm = one.gradientNorm() / examples;
        }
        if ((wantNorm || clipNorm > 0) && !Double.isFinite(norm)) {
            net.clearLayersStates();
            return new Result(loss, norm, examples, false, false);
        }
        boolean clipped = clipNorm > 0 && norm > clipNorm;
        double scale = clipped ? clipNorm / norm : 1.0;
        parts.run((part, count) -> one.apply(iteration, epoch, examples, microBatches, scale, part, count));
        net.getConfiguration().setIterationCount(iteration + 1);
        net.applyConstraints(iteration, epoch);
        net.clearLayersStates();
        return new Result(loss, norm, examples, clipped, true);
    }

    /**
     * ND4J's norm of the summed gradient, BatchNorm statistics set aside: the figure DL4J's path clips with (its float
     * sum differs from an exact one in the last digits, and clipping passes that on to every parameter).
     */
    private static double norm(INDArray flat, List<INDArray> stats) {
        if (stats.isEmpty()) {
            return flat.norm2Number().doubleValue();
        }
        List<INDArray> saved = new ArrayList<>(stats.size());
        for (INDArray s : stats) {
            saved.add(s.dup());
            s.assign(0);
        }
        double norm = flat.norm2Number().doubleValue();
        for (int i = 0; i < stats.size(); i++) {
            stats.get(i).assign(saved.get(i));
        }
        return norm;
    }

    /** The fused step for the network's updater as it is now (a stage or a tier may have rebuilt it), or null. */
    private FusedUpdate fused() {
        if (!fuse) {
            return null;
        }
        Object updater = net.getUpdater();
        Object state = net.getUpdater().getStateViewArray();
        if (updater != fusedFor || state != fusedState) {
            fused = FusedUpdate.plan(net);
            fusedFor = updater;
            fusedState = state;
        }
        return fused;
    }

    /** The gradients of frozen nodes: zeroed before each step, so that nothing moves them and no norm counts them. */
    private List<INDArray> frozenViews() {
        if (frozenViews == null) {
            List<INDArray> views = new ArrayList<>();
            for (Layer layer : net.getLayers()) {
                INDArray view = layer.getGradientsViewArray();
                if (view != null && view.length() > 0 && Frozen.is(layer)) {
                    views.add(view);
                }
            }
            frozenViews = views;
        }
        return frozenViews;
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
