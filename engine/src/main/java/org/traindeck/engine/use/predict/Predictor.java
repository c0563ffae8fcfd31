package org.traindeck.engine.use.predict;

import java.util.Arrays;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.outputs.PredictionInputException;

/**
 * Runs a model on inputs in batches and gathers its outputs, one row per input, with the most likely class along
 * the class axis for classification, segmentation and next-token models. The outputs are the network's own
 * (inference mode), unchanged.
 */
public final class Predictor {

    /** Rows per forward pass: bounded memory, whatever the number of inputs. */
    static final int BATCH = 64;

    private Predictor() {}

    public static Predictions predict(PredictionModel model, InputRows rows) {
        if (rows.count() == 0) {
            throw new PredictionInputException("no inputs to predict on");
        }
        int length = rows.length();
        if (length != model.shape().values()) {
            throw new IllegalArgumentException(
                    length + " values per row, the model takes " + model.shape().values());
        }
        return predict(model, rows.count(), rows.names(), (from, n) -> new INDArray[] {
            Nd4j.create(
                    Arrays.copyOfRange(rows.values(), from * length, (from + n) * length),
                    model.batchShape(n),
                    DataType.FLOAT)
        });
    }

    /** The network's input arrays for samples {@code from} to {@code from + n}. */
    interface Batches {
        INDArray[] of(int from, int n);
    }

    /**
     * The model's outputs for {@code count} samples, a batch of at most {@link #BATCH} at a time, one row each, with
     * the most likely class where the task has classes.
     */
    static Predictions predict(PredictionModel model, int count, List<String> names, Batches batches) {
        float[] out = null;
        long[] shape = null;
        int rowLength = 0;
        for (int from = 0; from < count; from += BATCH) {
            int n = Math.min(BATCH, count - from);
            INDArray y = model.forward().output(batches.of(from, n));
            if (out == null) {
                shape = y.shape().clone();
                shape[0] = count;
                rowLength = (int) (y.length() / n);
                out = new float[Math.multiplyExact(count, rowLength)];
            }
            float[] values =
                    y.castTo(DataType.FLOAT).dup('c').reshape(y.length()).toFloatVector();
            System.arraycopy(values, 0, out, from * rowLength, n * rowLength);
        }
        boolean classes = model.task() == Task.CLASSIFICATION
                || model.task() == Task.SEGMENTATION
                || model.task() == Task.SEQUENCE;
        long[] classShape = classes ? withoutAxis1(shape) : null;
        return new Predictions(out, shape, classes ? argmaxAxis1(out, shape) : null, classShape, names);
    }

    /** The index of the largest value along axis 1 (the lowest on a tie), for every other position. */
    static long[] argmaxAxis1(float[] values, long[] shape) {
        int n = (int) shape[0];
        int c = (int) shape[1];
        int inner = 1;
        for (int d = 2; d < shape.length; d++) {
            inner = Math.multiplyExact(inner, (int) shape[d]);
        }
        long[] out = new long[n * inner];
        for (int i = 0; i < n; i++) {
            int base = i * c * inner;
            for (int p = 0; p < inner; p++) {
                int best = 0;
                float bestValue = values[base + p];
                for (int k = 1; k < c; k++) {
                    float v = values[base + k * inner + p];
                    if (v > bestValue) {
                        best = k;
                        bestValue = v;
                    }
                }
                out[i * inner + p] = best;
            }
        }
        return out;
    }

    private static long[] withoutAxis1(long[] shape) {
        long[] out = new long[shape.length - 1];
        out[0] = shape[0];
        System.arraycopy(shape, 2, out, 1, shape.length - 2);
        return out;
    }
}
