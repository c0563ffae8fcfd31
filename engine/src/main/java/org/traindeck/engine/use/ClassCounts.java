package org.traindeck.engine.use;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.api.runs.ClassFigures;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.train.batch.ClassScores;

/**
 * Classes over batches, from probabilities and one-hot targets laid out [n, classes, positions] (one position for a
 * class per sample, one per pixel or voxel for masks): mean cross-entropy, accuracy, the confusion matrix (rows the
 * true class, columns the predicted one), top-5 accuracy, and each class's precision, recall, F1 and IoU.
 * A text's tokens keep only the loss and accuracy.
 */
class ClassCounts {

    final int classes;
    final int positions;
    final long[][] confusion;
    double lossSum;
    long count;
    long top5;
    long correct;

    /** @param matrix whether to keep the confusion matrix (not for a text's vocabulary: a large one would not fit) */
    private final long[] correctAt;

    private final long[] countAt;

    ClassCounts(int classes, int positions, boolean matrix) {
        this.classes = classes;
        this.positions = positions;
        this.confusion = matrix ? new long[classes][classes] : null;
        this.correctAt = new long[positions];
        this.countAt = new long[positions];
    }

    void add(float[] out, float[] labels, int n) {
        add(out, labels, null, n);
    }

    /** @param mask which positions count, [n, positions] of 1 and 0 (null: all) */
    void add(float[] out, float[] labels, float[] mask, int n) {
        for (int i = 0; i < n; i++) {
            for (int p = 0; p < positions; p++) {
                if (mask != null && mask[i * positions + p] == 0f) {
                    continue;
                }
                int base = i * classes * positions + p;
                int label = ClassScores.label(labels, base, classes, positions);
                int best = ClassScores.best(out, base, classes, positions);
                float truth = out[base + label * positions];
                lossSum += -Math.log(Math.max(truth, 1e-7));
                int above = 0;
                for (int k = 0; k < classes; k++) {
                    if (out[base + k * positions] > truth) {
                        above++;
                    }
                }
                if (above < 5) {
                    top5++;
                }
                if (confusion != null) {
                    confusion[label][best]++;
                }
                if (best == label) {
                    correct++;
                    correctAt[p]++;
                }
                count++;
                countAt[p]++;
            }
        }
    }

    /** The figures under the validation metrics' names. */
    Map<String, Double> figures(Task task) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(MetricNames.VAL_LOSS, lossSum / count);
        double accuracy = (double) correct / count;
        if (task == Task.SEQUENCE) {
            m.put(MetricNames.VAL_PERPLEXITY, Math.exp(lossSum / count));
            m.put(MetricNames.VAL_ACCURACY, accuracy);
            byStep(m);
        } else if (task == Task.SEGMENTATION) {
            m.put(MetricNames.VAL_PIXEL_ACCURACY, accuracy);
            double iou = 0;
            int present = 0;
            for (ClassFigures c : perClass(null)) {
                if (!Double.isNaN(c.iou())) {
                    iou += c.iou();
                    present++;
                }
            }
            m.put(MetricNames.VAL_MEAN_IOU, present == 0 ? 0 : iou / present);
        } else {
            m.put(MetricNames.VAL_ACCURACY, accuracy);
            if (classes > 5) {
                m.put(MetricNames.VAL_TOP5_ACCURACY, (double) top5 / count);
            }
        }
        return m;
    }

    /** Accuracy over positions 1–4, 5–8, 9–16, 17–32 …, 1-based, for sequences of at least 8 steps. */
    private void byStep(Map<String, Double> m) {
        if (positions < 8) {
            return;
        }
        for (int from = 0, to = 4; from < positions; from = to, to *= 2) {
            long right = 0;
            long seen = 0;
            for (int p = from; p < Math.min(to, positions); p++) {
                right += correctAt[p];
                seen += countAt[p];
            }
            if (seen > 0) {
                m.put(
                        MetricNames.VAL_ACCURACY_BY_STEP_PREFIX + (from + 1) + "-" + Math.min(to, positions),
                        (double) right / seen);
            }
        }
    }

    List<ClassFigures> perClass(List<String> names) {
        List<ClassFigures> out = new ArrayList<>();
        for (int k = 0; k < classes; k++) {
            long tp = confusion[k][k];
            long support = 0;
            long predicted = 0;
            for (int j = 0; j < classes; j++) {
                support += confusion[k][j];
                predicted += confusion[j][k];
            }
            double precision = predicted == 0 ? Double.NaN : (double) tp / predicted;
            double recall = support == 0 ? Double.NaN : (double) tp / support;
            double f1 = predicted + support == 0 ? Double.NaN : 2.0 * tp / (predicted + support);
            long union = support + predicted - tp;
            double iou = union == 0 ? Double.NaN : (double) tp / union;
            String name = names != null && k < names.size() ? names.get(k) : String.valueOf(k);
            out.add(new ClassFigures(k, name, support, predicted, precision, recall, f1, iou));
        }
        return out;
    }

    List<List<Long>> matrix() {
        List<List<Long>> rows = new ArrayList<>();
        for (long[] row : confusion) {
            List<Long> r = new ArrayList<>();
            for (long v : row) {
                r.add(v);
            }
            rows.add(List.copyOf(r));
        }
        return List.copyOf(rows);
    }
}
