package org.traindeck.engine.model.fit;

import java.util.List;
import java.util.Locale;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.StageConfig;

/**
 * Whether a stage's batch fits each device's memory, said before anything runs; when it does not, the largest
 * per-device batch that fits, with the accumulation that keeps the global batch.
 */
public final class FitCheck {

    private FitCheck() {}

    /** The stage's per-device line: "training memory per device: 412 MB (...); cpu: 18.3 GB available: fits". */
    public static String line(FitEstimate.Model model, StageConfig stage, List<DeviceMemory> devices) {
        FitEstimate e = model.at(stage.batchSize());
        StringBuilder s = new StringBuilder(String.format(
                Locale.ROOT,
                "training memory per device: %s (weights %s, gradients %s, %s state %s, activations at batch %d ~%s%s)",
                size(e.total()),
                mb(e.weights()),
                mb(e.gradients()),
                optimizerName(e.optimizer()),
                mb(e.optimizerState()),
                e.batch(),
                mb(e.activations()),
                e.fromReport() ? "" : ", counted from the layer shapes"));
        if (devices.isEmpty()) {
            s.append("; the selected devices' memory is not known, nothing to hold it against");
        }
        for (DeviceMemory d : devices) {
            long need = d.replicas() * e.total();
            s.append("; ").append(d.device());
            if (d.replicas() > 1) {
                s.append(" (")
                        .append(d.replicas())
                        .append(" replicas, ")
                        .append(size(need))
                        .append(")");
            }
            s.append(": ")
                    .append(size(d.availableBytes()))
                    .append(" available (")
                    .append(d.limitedBy())
                    .append("): ")
                    .append(need <= d.availableBytes() ? "fits" : "does NOT fit");
        }
        return s.toString();
    }

    /** The error at {@code stages[index].batchSize} when the stage does not fit some device; null when it fits them all. */
    public static ConfigProblem problem(
            int index, StageConfig stage, FitEstimate.Model model, List<DeviceMemory> devices) {
        int batch = stage.batchSize();
        for (DeviceMemory d : devices) {
            long need = d.replicas() * model.at(batch).total();
            if (need <= d.availableBytes()) {
                continue;
            }
            String path = "stages[" + index + "].batchSize";
            int largest = largestFitting(model, d, batch);
            String head = String.format(
                    Locale.ROOT,
                    "batch %d needs about %s of training memory on %s, which has %s available (%s)",
                    batch,
                    size(need),
                    d.device(),
                    size(d.availableBytes()),
                    d.limitedBy());
            if (largest < 1) {
                return new ConfigProblem(
                        ConfigProblem.Severity.ERROR,
                        path,
                        head + ": even batch 1 needs "
                                + size(d.replicas() * model.at(1).total()) + ", the model is too large for "
                                + d.device(),
                        0,
                        0);
            }
            long global = (long) batch * Math.max(1, stage.accumulationSteps());
            int suggested = largestDivisorAtMost(global, largest);
            return new ConfigProblem(
                    ConfigProblem.Severity.ERROR,
                    path,
                    head + ": use batchSize " + suggested + " with accumulationSteps " + global / suggested
                            + " (the same batch of " + global + " per device per update)",
                    0,
                    0);
        }
        return null;
    }

    /** The largest batch below {@code batch} whose replicas fit the device; 0 when not even one example does. */
    static int largestFitting(FitEstimate.Model model, DeviceMemory d, int batch) {
        int lo = 0;
        int hi = batch - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (d.replicas() * model.at(mid).total() <= d.availableBytes()) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private static int largestDivisorAtMost(long global, int limit) {
        for (int b = limit; b > 1; b--) {
            if (global % b == 0) {
                return b;
            }
        }
        return 1;
    }

    private static String optimizerName(String type) {
        return switch (type) {
            case "adam" -> "Adam";
            case "adamw" -> "AdamW";
            case "nesterovs" -> "Nesterovs";
            case "rmsprop" -> "RMSProp";
            default -> "SGD";
        };
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
    }

    static String size(long bytes) {
        return bytes >= 1e9
                ? String.format(Locale.ROOT, "%.1f GB", bytes / 1e9)
                : String.format(Locale.ROOT, "%.0f MB", bytes / 1e6);
    }
}
