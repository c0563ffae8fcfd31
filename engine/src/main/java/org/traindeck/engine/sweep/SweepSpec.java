package org.traindeck.engine.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A sweep file, checked: the base config (as JSON, with the folder its relative paths start from), how values are
 * chosen, the values of each parameter (a JSON path into the config), and the metric that ranks the trials.
 *
 * @param concurrent trials at once, each on its own share of the devices
 * @param maxTrials  the most trials the sweep may have (a grid's combinations or the random draws)
 */
public record SweepSpec(
        String name,
        Path file,
        ObjectNode base,
        Path baseDir,
        Method method,
        Map<String, Values> parameters,
        List<String> parameterOrder,
        int trials,
        long seed,
        String metric,
        boolean maximize,
        int concurrent,
        int maxTrials) {

    /** Trials a sweep may have when its file does not say: a slip such as a list pasted three times is caught. */
    public static final int DEFAULT_MAX_TRIALS = 1_000;
    /** The most a file may raise it to: every trial is checked and queued before the first one runs. */
    public static final int MAX_TRIALS_LIMIT = 100_000;

    public enum Method {
        GRID,
        RANDOM
    }

    /** What one parameter may take. */
    public sealed interface Values permits Listed, Range {}

    /** The values to try, as written. */
    public record Listed(List<JsonNode> values) implements Values {
        public Listed {
            values = List.copyOf(values);
        }
    }

    /** A range to draw from (random search only), evenly or evenly in the logarithm. */
    public record Range(double min, double max, boolean log) implements Values {}

    public SweepSpec {
        parameters = Map.copyOf(parameters);
        parameterOrder = List.copyOf(parameterOrder);
    }
}
