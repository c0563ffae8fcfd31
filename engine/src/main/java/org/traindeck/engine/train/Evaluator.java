package org.traindeck.engine.train;

import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.Dataset;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Validation metrics computed from the network's outputs in inference mode (no dropout, BatchNorm running
 * statistics): cross-entropy and accuracy for classification, MSE (the loss) and MAE for regression.
 */
final class Evaluator {

    private static final int BATCH = 512;

    private Evaluator() {
    }

    static Map<String, Double> evaluate(ComputationGraph net, Dataset data, boolean images, DataType dataType) {
        BatchMaker maker = new BatchMaker(data, images, null, dataType);
        int[] order = BatchMaker.epochOrder(data.size(), false, 0, 0, 0);
        double lossSum = 0;
        double absSum = 0;
        long correct = 0;
        int batches = maker.batchesPerEpoch(BATCH);
        for (int b = 0; b < batches; b++) {
            BatchMaker.Batch batch = maker.batch(order, b, BATCH, 0, 0, 0, false);
            INDArray out = net.output(false, batch.features())[0];
            float[][] p = out.castTo(DataType.FLOAT).toFloatMatrix();
            int from = b * BATCH;
            for (int i = 0; i < batch.size(); i++) {
                int sample = order[from + i];
                if (data.task() == Task.CLASSIFICATION) {
                    int label = data.classOf(sample);
                    lossSum += -Math.log(Math.max(p[i][label], 1e-7));
                    int best = 0;
                    for (int c = 1; c < p[i].length; c++) {
                        if (p[i][c] > p[i][best]) {
                            best = c;
                        }
                    }
                    if (best == label) {
                        correct++;
                    }
                } else {
                    double err = p[i][0] - data.targetOf(sample);
                    lossSum += err * err;
                    absSum += Math.abs(err);
                }
            }
        }
        Map<String, Double> metrics = new LinkedHashMap<>();
        int n = data.size();
        if (data.task() == Task.CLASSIFICATION) {
            metrics.put("val/loss", lossSum / n);
            metrics.put("val/accuracy", (double) correct / n);
        } else {
            metrics.put("val/loss", lossSum / n);
            metrics.put("val/mse", lossSum / n);
            metrics.put("val/mae", absSum / n);
        }
        return metrics;
    }
}
