package org.traindeck.engine.train.callback;

import java.util.LinkedHashMap;
import java.util.Map;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.train.batch.ClassScores;
import org.traindeck.engine.train.batch.LabelMasks;
import org.traindeck.engine.train.batch.ValueErrors;

/**
 * A task's validation metrics, accumulated over batches of outputs and targets (both flattened channels first):
 * cross-entropy and accuracy for classes; MSE and MAE for values; loss, pixel accuracy and mean IoU for masks;
 * MSE and PSNR for reconstruction; loss per token and perplexity for sequences.
 */
abstract class TaskMetrics {

    static TaskMetrics of(Dataset data) {
        int c = data.outputCount();
        return switch (data.task()) {
            case CLASSIFICATION -> new Classes(c, 1, false);
            case SEGMENTATION -> new Classes(c, data.targetLength(), true);
            case SEQUENCE -> new Tokens(c, data.targetLength());
            case REGRESSION -> new Values(false);
            case RECONSTRUCTION -> new Values(true);
            case DIFFUSION -> new Values(false);
        };
    }

    /**
     * @param out the network's outputs, {@code labels} the encoded targets, for {@code n} samples
     * @param mask which positions count, [n, positions] of 1 and 0 (null: all)
     */
    abstract void add(float[] out, float[] labels, float[] mask, int n);

    abstract Map<String, Double> result();

    /** One-hot targets over {@code positions} per sample: classification (1 position) and segmentation. */
    private static class Classes extends TaskMetrics {
        final int classes;
        final int positions;
        final boolean perPixel;
        final long[] intersection;
        final long[] union;
        double lossSum;
        long correct;
        long count;

        Classes(int classes, int positions, boolean perPixel) {
            this.classes = classes;
            this.positions = positions;
            this.perPixel = perPixel;
            this.intersection = new long[classes];
            this.union = new long[classes];
        }

        @Override
        void add(float[] out, float[] labels, float[] mask, int n) {
            for (int i = 0; i < n; i++) {
                for (int p = 0; p < positions; p++) {
                    if (mask != null && mask[i * positions + p] == 0f) {
                        continue;
                    }
                    int base = i * classes * positions + p;
                    int label = ClassScores.label(labels, base, classes, positions);
                    int best = ClassScores.best(out, base, classes, positions);
                    lossSum += -Math.log(Math.max(out[base + label * positions], 1e-7));
                    count++;
                    if (best == label) {
                        correct++;
                        intersection[label]++;
                        union[label]++;
                    } else {
                        union[label]++;
                        union[best]++;
                    }
                }
            }
        }

        @Override
        Map<String, Double> result() {
            Map<String, Double> m = new LinkedHashMap<>();
            m.put(MetricNames.VAL_LOSS, lossSum / count);
            if (!perPixel) {
                m.put(MetricNames.VAL_ACCURACY, (double) correct / count);
                return m;
            }
            m.put(MetricNames.VAL_PIXEL_ACCURACY, (double) correct / count);
            double iou = 0;
            int present = 0;
            for (int k = 0; k < classes; k++) {
                if (union[k] > 0) {
                    iou += (double) intersection[k] / union[k];
                    present++;
                }
            }
            m.put(MetricNames.VAL_MEAN_IOU, present == 0 ? 0 : iou / present);
            return m;
        }
    }

    /** The next token at every step: outputs and targets [n, vocabulary, steps]. */
    private static final class Tokens extends Classes {
        Tokens(int vocabulary, int steps) {
            super(vocabulary, steps, false);
        }

        @Override
        Map<String, Double> result() {
            double loss = lossSum / count;
            Map<String, Double> m = new LinkedHashMap<>();
            m.put(MetricNames.VAL_LOSS, loss);
            m.put(MetricNames.VAL_PERPLEXITY, Math.exp(loss));
            m.put(MetricNames.VAL_ACCURACY, (double) correct / count);
            return m;
        }
    }

    /** Real values (regression) or the input again (reconstruction). */
    private static final class Values extends TaskMetrics {
        final boolean reconstruction;
        final ValueErrors errors = new ValueErrors();

        Values(boolean reconstruction) {
            this.reconstruction = reconstruction;
        }

        @Override
        void add(float[] out, float[] labels, float[] mask, int n) {
            float[] weights = mask == null ? null : LabelMasks.perValue(mask, n, labels.length / n);
            for (int i = 0; i < labels.length; i++) {
                if (weights != null && weights[i] == 0f) {
                    continue;
                }
                errors.add(out[i], labels[i]);
            }
        }

        @Override
        Map<String, Double> result() {
            Map<String, Double> m = new LinkedHashMap<>();
            m.put(MetricNames.VAL_LOSS, errors.mse());
            m.put(MetricNames.VAL_MSE, errors.mse());
            if (reconstruction) {
                m.put(MetricNames.VAL_PSNR, errors.psnr());
            } else {
                m.put(MetricNames.VAL_MAE, errors.mae());
            }
            return m;
        }
    }
}
