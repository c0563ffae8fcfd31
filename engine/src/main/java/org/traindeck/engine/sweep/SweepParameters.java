package org.traindeck.engine.sweep;

import static org.traindeck.engine.sweep.SweepParser.error;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.traindeck.engine.config.ConfigProblem;

/** A sweep file's "parameters": each config path with its list of values, or (random search) its range. */
final class SweepParameters {

    private SweepParameters() {}

    static Map<String, SweepSpec.Values> read(JsonNode node, SweepSpec.Method method, List<ConfigProblem> problems) {
        Map<String, SweepSpec.Values> parameters = new LinkedHashMap<>();
        if (node == null || !node.isObject() || node.isEmpty()) {
            problems.add(error(
                    "parameters",
                    "needs at least one parameter: {\"stages[0].optimizer.learningRate\": [0.001, 0.01]}"));
            return parameters;
        }
        node.fields().forEachRemaining(f -> {
            String path = "parameters." + f.getKey();
            JsonNode v = f.getValue();
            if (!f.getKey().matches("[A-Za-z]\\w*(\\[\\d+])?(\\.[A-Za-z]\\w*(\\[\\d+])?)*")) {
                problems.add(error(path, "is not a config path such as stages[0].optimizer.learningRate"));
            } else if (f.getKey().equals("name")) {
                problems.add(error(path, "the sweep names its trials itself"));
            } else if (v.isArray()) {
                if (v.isEmpty()) {
                    problems.add(error(path, "needs at least one value"));
                } else {
                    List<JsonNode> values = new ArrayList<>();
                    v.forEach(values::add);
                    parameters.put(f.getKey(), new SweepSpec.Listed(values));
                }
            } else if (v.isObject()) {
                range(path, v, method, problems).ifPresent(r -> parameters.put(f.getKey(), r));
            } else {
                problems.add(error(
                        path, "must be a list of values, or a range {\"min\": ..., \"max\": ..., \"scale\": \"log\"}"));
            }
        });
        return parameters;
    }

    private static Optional<SweepSpec.Range> range(
            String path, JsonNode v, SweepSpec.Method method, List<ConfigProblem> problems) {
        if (method == SweepSpec.Method.GRID) {
            problems.add(error(path, "a grid needs a list of values; a range is for \"method\": \"random\""));
            return Optional.empty();
        }
        JsonNode min = v.get("min");
        JsonNode max = v.get("max");
        String scale = v.path("scale").asText("linear");
        if (min == null || max == null || !min.isNumber() || !max.isNumber() || min.asDouble() >= max.asDouble()) {
            problems.add(error(path, "a range needs numbers \"min\" < \"max\""));
            return Optional.empty();
        }
        if (!scale.equals("linear") && !scale.equals("log")) {
            problems.add(error(path + ".scale", "\"" + scale + "\" is not linear or log"));
            return Optional.empty();
        }
        if (scale.equals("log") && min.asDouble() <= 0) {
            problems.add(error(path + ".min", "a log range starts above 0"));
            return Optional.empty();
        }
        return Optional.of(new SweepSpec.Range(min.asDouble(), max.asDouble(), scale.equals("log")));
    }
}
