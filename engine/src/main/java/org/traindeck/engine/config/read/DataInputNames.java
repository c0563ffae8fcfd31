package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.Task;

/**
 * The names a layer graph may read the data by, taken from the config's text before its sections are read (the model
 * is read before the data): "input" for sources of one input, else the names of every training source's named
 * inputs (and derived inputs), the run's and the stages' ({@link InputChecks} then requires those of one network to
 * agree), after "noisy" and "timestep" for a diffusion source.
 */
final class DataInputNames {

    private DataInputNames() {}

    static List<String> of(JsonNode data, JsonNode stages) {
        List<String> names = new ArrayList<>();
        add(names, data);
        if (stages != null && stages.isArray()) {
            stages.forEach(stage -> add(names, stage.get("data")));
        }
        return names.isEmpty() ? List.of(GraphReader.INPUT) : List.copyOf(names);
    }

    private static void add(List<String> names, JsonNode data) {
        JsonNode train = data == null ? null : data.path("train");
        if (train != null && Task.DIFFUSION.json.equals(train.path("task").asText())) {
            // the diffusion task makes these two inputs before the source's own, which are the conditioning
            for (String made : List.of(DiffusionConfig.NOISY, DiffusionConfig.TIMESTEP)) {
                if (!names.contains(made)) {
                    names.add(made);
                }
            }
        }
        for (String key : List.of("inputs", "derive")) {
            JsonNode inputs = train == null ? null : train.get(key);
            if (inputs != null && inputs.isObject()) {
                inputs.fieldNames().forEachRemaining(n -> {
                    if (!names.contains(n)) {
                        names.add(n);
                    }
                });
            }
        }
    }
}
