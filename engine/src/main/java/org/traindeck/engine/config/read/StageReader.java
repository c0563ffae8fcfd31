package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.traindeck.engine.config.AugmentationConfig;
import org.traindeck.engine.config.EmaConfig;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.OptimizerConfig;
import org.traindeck.engine.config.ScheduleConfig;
import org.traindeck.engine.config.StageConfig;

/**
 * Reads the "stages" list: each stage's optimizer, schedule, augmentation, data and model. Values and defaults come from the
 * schema; what is written here is what a schema cannot say.
 */
final class StageReader {

    private final Problems problems;
    private final SourceReader sources;
    private final Function<JsonObjectReader, ModelConfig> models;

    /** @param models reads a stage's own model as the run's is read */
    StageReader(Problems problems, SourceReader sources, Function<JsonObjectReader, ModelConfig> models) {
        this.problems = problems;
        this.sources = sources;
        this.models = models;
    }

    List<StageConfig> readStages(JsonObjectReader r) {
        JsonNode v = r.raw("stages");
        String at = r.pathOf("stages");
        if (v == null) {
            problems.error(at, "is required: a list of one or more stages");
            return List.of();
        }
        if (!v.isArray() || v.isEmpty()) {
            problems.error(
                    at,
                    "must be a list of one or more stages, not "
                            + (v.isArray() ? "an empty list" : JsonObjectReader.describe(v)));
            return List.of();
        }
        List<StageConfig> stages = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < v.size(); i++) {
            String stagePath = JsonLocations.element(at, i);
            JsonNode node = v.get(i);
            if (!node.isObject()) {
                problems.error(stagePath, "must be an object {...}, not " + JsonObjectReader.describe(node));
                continue;
            }
            StageConfig stage = readStage(
                    new JsonObjectReader(
                            problems,
                            stagePath,
                            node,
                            r.schema().property("stages").items()),
                    i);
            if (stage != null) {
                if (!names.add(stage.name())) {
                    problems.error(
                            JsonLocations.child(stagePath, "name"),
                            "another stage is already named \"" + stage.name() + "\"");
                }
                stages.add(stage);
            }
        }
        return stages;
    }

    private StageConfig readStage(JsonObjectReader r, int index) {
        return RecordReader.read(
                r,
                StageConfig.class,
                Map.of(
                        "name",
                                soFar -> {
                                    String name = r.string("name", "stage" + (index + 1));
                                    if (name != null
                                            && !ConfigParser.RUN_NAME
                                                    .matcher(name)
                                                    .matches()) {
                                        problems.error(
                                                r.pathOf("name"), "must be 1 to 64 letters, digits, '.', '_' or '-'");
                                    }
                                    return name;
                                },
                        "optimizer", soFar -> readOptimizer(r.section("optimizer")),
                        "schedule", soFar -> readSchedule(r.section("schedule")),
                        "augmentation",
                                soFar -> {
                                    JsonObjectReader a = r.object("augmentation");
                                    return a == null ? null : RecordReader.read(a, AugmentationConfig.class);
                                },
                        "data",
                                soFar -> {
                                    JsonObjectReader d = r.object("data");
                                    return d == null ? null : sources.readData(d);
                                },
                        "ema",
                                soFar -> {
                                    JsonObjectReader e = r.object("ema");
                                    return e == null ? null : RecordReader.read(e, EmaConfig.class);
                                },
                        "model",
                                soFar -> {
                                    JsonObjectReader m = r.object("model");
                                    return m == null ? null : models.apply(m);
                                }));
    }

    private OptimizerConfig readOptimizer(JsonObjectReader r) {
        String type = r.choice("type");
        Double lr = r.number("learningRate");
        Double wd = r.number("weightDecay");
        Set<String> accepted = type == null ? Set.of() : OptimizerConfig.FIELDS.get(type);
        List<String> options = List.of("momentum", "beta1", "beta2", "epsilon");
        double[] values = new double[options.size()];
        for (int i = 0; i < values.length; i++) {
            String field = options.get(i);
            // a type's unused options hold the schema's defaults, so that configs differing only there compare equal
            values[i] = r.schema().defaultOf(field).doubleValue();
            if (type != null && !accepted.contains(field)) {
                if (r.has(field)) {
                    problems.error(
                            r.pathOf(field),
                            "does not apply to the " + type + " optimizer"
                                    + (accepted.isEmpty()
                                            ? ""
                                            : " (it takes: "
                                                    + String.join(
                                                            ", ",
                                                            accepted.stream()
                                                                    .sorted()
                                                                    .toList()) + ")"));
                }
            } else {
                values[i] = r.number(field);
            }
        }
        r.finish();
        return type == null ? null : new OptimizerConfig(type, lr, values[0], values[1], values[2], values[3], wd);
    }

    private ScheduleConfig readSchedule(JsonObjectReader r) {
        Class<? extends ScheduleConfig> variant = RecordReader.variant(r, ScheduleConfig.class);
        if (variant == null) {
            return null;
        }
        if (variant != ScheduleConfig.WarmupCosine.class) {
            return RecordReader.read(r, variant);
        }
        // warmup is given in steps or in epochs, never both; none is no warmup
        return RecordReader.read(
                r,
                ScheduleConfig.WarmupCosine.class,
                Map.of(
                        "warmupSteps", soFar -> r.integer("warmupSteps", r.has("warmupEpochs") ? null : 0),
                        "warmupEpochs",
                                soFar -> {
                                    Double epochs = r.number("warmupEpochs", null);
                                    if (epochs != null && r.has("warmupSteps")) {
                                        problems.error(
                                                r.pathOf("warmupEpochs"),
                                                "give either \"warmupSteps\" or \"warmupEpochs\", not both");
                                    }
                                    return epochs;
                                }));
    }
}
