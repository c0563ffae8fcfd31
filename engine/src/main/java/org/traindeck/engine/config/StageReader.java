package org.traindeck.engine.config;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the "stages" list: each stage's optimizer, schedule, augmentation and data. Values and defaults come from the
 * schema; what is written here is what a schema cannot say.
 */
final class StageReader {

    private final Problems problems;
    private final SourceReader sources;

    StageReader(Problems problems, SourceReader sources) {
        this.problems = problems;
        this.sources = sources;
    }

    List<StageConfig> readStages(JsonObjectReader r) {
        JsonNode v = r.raw("stages");
        String at = r.pathOf("stages");
        if (v == null) {
            problems.error(at, "is required: a list of one or more stages");
            return List.of();
        }
        if (!v.isArray() || v.isEmpty()) {
            problems.error(at, "must be a list of one or more stages, not " + (v.isArray() ? "an empty list" : JsonObjectReader.describe(v)));
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
            StageConfig stage = readStage(new JsonObjectReader(problems, stagePath, node, r.schema().property("stages").items()), i);
            if (stage != null) {
                if (!names.add(stage.name())) {
                    problems.error(JsonLocations.child(stagePath, "name"), "another stage is already named \"" + stage.name() + "\"");
                }
                stages.add(stage);
            }
        }
        return stages;
    }

    private StageConfig readStage(JsonObjectReader r, int index) {
        String name = r.string("name", "stage" + (index + 1));
        if (name != null && !ConfigParser.RUN_NAME.matcher(name).matches()) {
            problems.error(r.pathOf("name"), "must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        Integer epochs = r.requiredInt("epochs");
        Integer batchSize = r.integer("batchSize");
        OptimizerConfig optimizer = readOptimizer(r.section("optimizer"));
        ScheduleConfig schedule = readSchedule(r.section("schedule"));
        Double clipNorm = r.number("gradientClipping");
        Integer accumulation = r.integer("accumulationSteps");
        String precision = r.choice("precision");
        JsonObjectReader augmentationReader = r.object("augmentation");
        AugmentationConfig augmentation = augmentationReader == null ? null : readAugmentation(augmentationReader);
        Integer validationInterval = r.integer("validationInterval");
        JsonObjectReader dataReader = r.object("data");
        DataConfig data = dataReader == null ? null : sources.readData(dataReader);
        r.finish();
        if (epochs == null || optimizer == null || schedule == null || precision == null) {
            return null;
        }
        return new StageConfig(name, epochs, batchSize, optimizer, schedule, clipNorm, accumulation,
                StageConfig.Precision.of(precision), augmentation, validationInterval, data);
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
                    problems.error(r.pathOf(field), "does not apply to the " + type + " optimizer"
                            + (accepted.isEmpty() ? "" : " (it takes: " + String.join(", ", accepted.stream().sorted().toList()) + ")"));
                }
            } else {
                values[i] = r.number(field);
            }
        }
        r.finish();
        return type == null ? null : new OptimizerConfig(type, lr, values[0], values[1], values[2], values[3], wd);
    }

    private ScheduleConfig readSchedule(JsonObjectReader r) {
        String type = r.requiredChoice("type");
        r.variant(type);
        ScheduleConfig schedule = null;
        if ("constant".equals(type)) {
            schedule = new ScheduleConfig.Constant();
        } else if ("step".equals(type)) {
            Double every = r.requiredNumber("everyEpochs");
            Double gamma = r.number("gamma");
            schedule = every == null ? null : new ScheduleConfig.Step(every, gamma);
        } else if ("warmupCosine".equals(type)) {
            Integer warmupSteps = r.integer("warmupSteps", null);
            Double warmupEpochs = r.number("warmupEpochs", null);
            if (warmupSteps != null && warmupEpochs != null) {
                problems.error(r.pathOf("warmupEpochs"), "give either \"warmupSteps\" or \"warmupEpochs\", not both");
            }
            if (warmupSteps == null && warmupEpochs == null) {
                warmupSteps = 0;
            }
            Double min = r.number("minLearningRate");
            schedule = new ScheduleConfig.WarmupCosine(warmupEpochs == null ? warmupSteps : null, warmupEpochs, min);
        } else {
            r.allow("everyEpochs", "gamma", "warmupSteps", "warmupEpochs", "minLearningRate");
        }
        r.finish();
        return schedule;
    }

    private AugmentationConfig readAugmentation(JsonObjectReader r) {
        AugmentationConfig a = new AugmentationConfig(r.bool("rotate90"), r.bool("flipHorizontal"), r.bool("flipVertical"),
                r.number("brightness"), r.number("contrast"));
        r.finish();
        return a;
    }
}
