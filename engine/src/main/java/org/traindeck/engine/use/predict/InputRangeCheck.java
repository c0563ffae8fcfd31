package org.traindeck.engine.use.predict;

import java.util.Locale;
import org.traindeck.engine.data.InputRange;

/**
 * Inputs far outside the range the network was trained on (0–255 given to a model trained on 0–1): the network still
 * answers, confidently and wrongly, so the user is told, with the {@code --scale} that would bring them back. "Far" is
 * beyond the training range by more than its own width, so that new data a little outside passes quietly.
 */
final class InputRangeCheck {

    private InputRangeCheck() {}

    /** A warning for {@code values} (as the network would see them), or null when they are in range or none is known. */
    static String warning(String source, float[] values, PredictionModel model, double divideBy) {
        InputRange trained = model.trainedRange();
        if (trained == null || values.length == 0) {
            return null;
        }
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (float v : values) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        double margin = Math.max(trained.span(), 1e-6);
        if (max <= trained.max() + margin && min >= trained.min() - margin) {
            return null;
        }
        String what = source + "'s values run from " + number(min) + " to " + number(max)
                + (model.normalizer() != null || divideBy != 1 ? " (as the model sees them)" : "")
                + ", far outside the " + number(trained.min()) + " to " + number(trained.max())
                + " the model was trained on: its predictions on them mean little";
        double factor =
                Math.max(Math.abs(max), Math.abs(min)) / Math.max(Math.abs(trained.max()), Math.abs(trained.min()));
        if (model.normalizer() != null || !Double.isFinite(factor) || factor <= 1) {
            return what + "; give the inputs in the units the model was trained on";
        }
        double whole = divideBy * (Math.abs(factor - 255) < 255 * 0.1 ? 255 : factor);
        return what + "; if they are in other units, divide them: --scale " + number(whole);
    }

    private static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e9) {
            return String.valueOf((long) v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }
}
