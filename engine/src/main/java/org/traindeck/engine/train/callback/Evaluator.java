package org.traindeck.engine.train.callback;

import java.util.Map;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.train.batch.BatchMaker;
import org.traindeck.engine.train.state.TrainingState;

/**
 * Validation metrics computed from the network's outputs in inference mode (no dropout, BatchNorm running
 * statistics), each task's own ({@link TaskMetrics}). A stop request ends it between two batches ({@link ValidationStopped}),
 * since a validation can outlast the time a signal gives the run to save.
 */
final class Evaluator {

    /** Values per validation batch: small samples go 512 at a time, volumes a few at a time. */
    private static final int VALUES_PER_BATCH = 1 << 18;

    private Evaluator() {}

    static Map<String, Double> evaluate(
            ComputationGraph net, Dataset data, boolean images, DataType dataType, TrainingState state) {
        int batch = Math.max(1, Math.min(512, VALUES_PER_BATCH / Math.max(1, data.featureCount())));
        BatchMaker maker = new BatchMaker(data, images, null, dataType);
        int[] order = BatchMaker.epochOrder(data.size(), false, 0, 0, 0);
        TaskMetrics metrics = TaskMetrics.of(data);
        int batches = maker.batchesPerEpoch(batch);
        long pauseMs = state.faults.validationBatchPauseMs();
        for (int b = 0; b < batches; b++) {
            if (state.stopRequested) {
                throw new ValidationStopped();
            }
            if (pauseMs > 0) {
                pause(pauseMs);
            }
            BatchMaker.Batch x = maker.batch(order, b, batch, 0, 0, 0, false);
            INDArray out = net.output(false, x.inputs())[0];
            metrics.add(flat(out), flat(x.labels()), x.labelMask() == null ? null : flat(x.labelMask()), x.size());
        }
        return metrics.result();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static float[] flat(INDArray a) {
        return a.castTo(DataType.FLOAT).dup('c').data().asFloat();
    }
}
