package org.traindeck.engine.train;

import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.linalg.api.ndarray.INDArray;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One optimizer step over one or more micro-batches, done by hand around DL4J's updater so that gradient
 * accumulation and global-norm clipping really change the update:
 * sum the micro-batches' gradients, divide by the number of examples (as DL4J's own fit does), clip the global L2
 * norm, then let DL4J's updater (Adam, SGD, ...) turn the gradient into the update and subtract it.
 * BatchNorm running statistics are updates, not gradients: they are averaged over micro-batches and never clipped.
 */
final class TrainingStep {

    /**
     * The step's mean loss over its examples, the gradient's L2 norm before clipping, the examples used, and whether
     * the update was applied (it is not when the loss or the gradient is not finite: the parameters stay as they were).
     */
    record Result(double loss, double gradNorm, int examples, boolean clipped, boolean applied) {}

    private final ComputationGraph net;
    private final boolean dataLossOnly;
    private INDArray accumulator;
    private List<INDArray> statViews;

    /** @param dataLossOnly report the loss without the weight-decay penalty (DL4J's score includes it) */
    TrainingStep(ComputationGraph net, boolean dataLossOnly) {
        this.net = net;
        this.dataLossOnly = dataLossOnly;
    }

    Result step(List<BatchMaker.Batch> microBatches, int iteration, int epoch, double clipNorm) {
        return step(microBatches, iteration, epoch, clipNorm, true, false);
    }

    /**
     * @param wantNorm compute the gradient's norm even when nothing needs it (it is reported): one more pass
     * @param poison   make this step's loss and gradient NaN (fault injection for tests)
     */
    Result step(List<BatchMaker.Batch> microBatches, int iteration, int epoch, double clipNorm, boolean wantNorm, boolean poison) {
        int k = microBatches.size();
        int examples = 0;
        double lossSum = 0;
        INDArray flat = null;
        for (int j = 0; j < k; j++) {
            BatchMaker.Batch b = microBatches.get(j);
            net.setInputs(b.features());
            net.setLabels(b.labels());
            net.computeGradientAndScore();
            double score = net.score();
            if (dataLossOnly) {
                score -= net.calcRegularizationScore(true);
            }
            lossSum += score * b.size();
            examples += b.size();
            flat = net.getGradientsViewArray();
            if (k > 1) {
                if (accumulator == null || accumulator.length() != flat.length() || accumulator.dataType() != flat.dataType()) {
                    accumulator = flat.dup();
                } else if (j == 0) {
                    accumulator.assign(flat);
                } else {
                    accumulator.addi(flat);
                }
            }
        }
        if (k > 1) {
            flat.assign(accumulator);
        }
        if (poison) {
            // what a diverged step looks like: the loss and the gradient are no longer numbers
            lossSum = Double.NaN;
            flat.assign(Double.NaN);
        }
        Gradient gradient = net.gradient();
        List<INDArray> stats = statViews(gradient);
        double norm;
        boolean clipped = false;
        double loss = lossSum / examples;
        if (!Double.isFinite(loss)) {
            net.clearLayersStates();
            return new Result(loss, Double.NaN, examples, false, false);
        }
        int updaterBatch = 1;
        if (stats.isEmpty() && clipNorm <= 0) {
            // nothing to do between division and update: DL4J's updater divides, as in its own fit (one pass, not two)
            norm = wantNorm ? flat.norm2Number().doubleValue() / examples : Double.NaN;
            if (wantNorm && !Double.isFinite(norm)) {
                net.clearLayersStates();
                return new Result(loss, norm, examples, false, false);
            }
            updaterBatch = examples;
        } else {
            // Set the statistics aside so that division and clipping touch gradients only.
            List<INDArray> saved = new ArrayList<>(stats.size());
            for (INDArray s : stats) {
                saved.add(s.div(k));
                s.assign(0);
            }
            flat.divi(examples);
            norm = flat.norm2Number().doubleValue();
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
        INDArray params = net.params();
        params.subi(flat.reshape(params.shape()));
        net.getConfiguration().setIterationCount(iteration + 1);
        net.applyConstraints(iteration, epoch);
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
