package org.traindeck.engine.sweep;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.LocatedJsonParser;
import org.traindeck.engine.config.read.Suggestions;
import org.traindeck.engine.events.MetricTable;

/**
 * Reads a sweep file strictly: every problem in one pass, each naming its key ({@code parameters.
 * stages[0].optimizer.learningRate: ...}); the base config must exist and be a JSON object (whether each trial's
 * config is valid is checked by {@link SweepTrials}).
 */
public final class SweepParser {

    /** Values stay as written: 0.0005 is tried (and shown) as 0.0005, not 5.0E-4. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    private static final Set<String> KEYS = Set.of(
            "name", "base", "method", "parameters", "trials", "seed", "metric", "goal", "concurrent", "maxTrials");

    private SweepParser() {}

    public static SweepSpec load(Path file) throws IOException {
        String text = SweepFileText.read(file);
        // positions from the config's own parser; the values from a reader that keeps 0.0005 as written
        LocatedJsonParser.Result located = SweepFileText.located(text, file);
        JsonNode root = JSON.readTree(text);
        if (root == null || !root.isObject()) {
            throw new InvalidConfigException("", file + ": a sweep file is a JSON object");
        }
        List<ConfigProblem> problems = new ArrayList<>();
        unknownKeys(root, problems);
        String name = name(root, problems);
        Path baseDir = file.toAbsolutePath().getParent();
        ObjectNode base = base(root.get("base"), baseDir, problems);
        if (root.get("base") != null && root.get("base").isTextual()) {
            baseDir = baseDir.resolve(root.get("base").asText()).getParent();
        }
        SweepSpec.Method method = method(root, problems);
        Map<String, SweepSpec.Values> parameters = SweepParameters.read(root.get("parameters"), method, problems);
        int trials =
                integer(root, "trials", method == SweepSpec.Method.RANDOM ? -1 : 0, 1, Integer.MAX_VALUE, problems);
        if (method == SweepSpec.Method.GRID && root.has("trials")) {
            problems.add(error("trials", "a grid tries every combination; trials is for \"method\": \"random\""));
        }
        long seed = seed(root, problems);
        String metric = text(root, "metric", problems, true);
        String goal = goal(root, problems);
        int concurrent = integer(root, "concurrent", 1, 1, 64, problems);
        int maxTrials =
                integer(root, "maxTrials", SweepSpec.DEFAULT_MAX_TRIALS, 1, SweepSpec.MAX_TRIALS_LIMIT, problems);
        if (problems.isEmpty()) {
            tooManyTrials(method, parameters, trials, maxTrials).ifPresent(problems::add);
        }
        if (!problems.isEmpty()) {
            throw new InvalidConfigException(
                    problems.stream().map(p -> located(p, located.locations())).toList());
        }
        boolean maximize = goal == null ? MetricTable.of(metric).higherIsBetter() : goal.equals("max");
        List<String> order = List.copyOf(parameters.keySet());
        return new SweepSpec(
                name,
                file.toAbsolutePath(),
                base,
                baseDir,
                method,
                parameters,
                order,
                trials,
                seed,
                metric,
                maximize,
                concurrent,
                maxTrials);
    }

    private static void unknownKeys(JsonNode root, List<ConfigProblem> problems) {
        root.fieldNames().forEachRemaining(k -> {
            if (!KEYS.contains(k)) {
                problems.add(error(
                        k,
                        "unknown key" + Suggestions.didYouMean(k, KEYS) + " (a sweep file has "
                                + String.join(", ", KEYS.stream().sorted().toList()) + ")"));
            }
        });
    }

    private static String name(JsonNode root, List<ConfigProblem> problems) {
        String name = text(root, "name", problems, true);
        if (name != null && !name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
            problems.add(error(
                    "name",
                    "letters, digits, '.', '_' and '-' only (it names the trials' run folders), 1 to 64 characters"));
        }
        return name;
    }

    private static SweepSpec.Method method(JsonNode root, List<ConfigProblem> problems) {
        String method = text(root, "method", problems, false);
        if (method == null || method.equals("grid")) {
            return SweepSpec.Method.GRID;
        }
        if (method.equals("random")) {
            return SweepSpec.Method.RANDOM;
        }
        problems.add(error("method", "\"" + method + "\" is not grid or random"));
        return SweepSpec.Method.GRID;
    }

    private static long seed(JsonNode root, List<ConfigProblem> problems) {
        if (!root.has("seed")) {
            return 0;
        }
        if (!root.get("seed").canConvertToLong()) {
            problems.add(error("seed", "must be a whole number"));
            return 0;
        }
        return root.get("seed").asLong();
    }

    private static String goal(JsonNode root, List<ConfigProblem> problems) {
        String goal = text(root, "goal", problems, false);
        if (goal != null && !goal.equals("max") && !goal.equals("min")) {
            problems.add(error("goal", "\"" + goal + "\" is not max or min"));
        }
        return goal;
    }

    /** Counted, not expanded: a grid of 10^9 trials is refused at once rather than listed until memory runs out. */
    private static Optional<ConfigProblem> tooManyTrials(
            SweepSpec.Method method, Map<String, SweepSpec.Values> parameters, int trials, int maxTrials) {
        if (method == SweepSpec.Method.RANDOM) {
            return trials <= maxTrials
                    ? Optional.empty()
                    : Optional.of(error(
                            "trials",
                            trials + " draws, above maxTrials " + maxTrials
                                    + ": draw fewer, or raise \"maxTrials\" (at most " + SweepSpec.MAX_TRIALS_LIMIT
                                    + ")"));
        }
        long count = TrialSpace.count(method, parameters, trials);
        return count <= maxTrials
                ? Optional.empty()
                : Optional.of(
                        error("parameters", SweepTrials.tooMany(count, TrialSpace.factors(parameters), maxTrials)));
    }

    private static ObjectNode base(JsonNode base, Path dir, List<ConfigProblem> problems) {
        if (base == null) {
            problems.add(error(
                    "base",
                    "missing: the config the trials start from (a file next to the sweep, or a config object)"));
            return null;
        }
        if (base.isObject()) {
            return (ObjectNode) base;
        }
        if (!base.isTextual()) {
            problems.add(error("base", "must be a config file's path or a config object"));
            return null;
        }
        Path file = dir.resolve(base.asText());
        if (!Files.isRegularFile(file)) {
            problems.add(error("base", file + " does not exist"));
            return null;
        }
        try {
            if (Files.size(file) > ConfigParser.MAX_CONFIG_BYTES) {
                problems.add(error("base", file + " is too large to be a run config"));
                return null;
            }
            JsonNode config = JSON.readTree(Files.readString(file));
            if (config instanceof ObjectNode o) {
                return o;
            }
            problems.add(error("base", file + " is not a JSON object"));
        } catch (IOException e) {
            problems.add(error(
                    "base",
                    file + " is not a readable JSON config: "
                            + e.getMessage().lines().findFirst().orElse("")));
        }
        return null;
    }

    private static String text(JsonNode root, String key, List<ConfigProblem> problems, boolean required) {
        JsonNode v = root.get(key);
        if (v == null) {
            if (required) {
                problems.add(error(key, "missing"));
            }
            return null;
        }
        if (!v.isTextual() || v.asText().isBlank()) {
            problems.add(error(key, "must be a non-empty string"));
            return null;
        }
        return v.asText();
    }

    /** @param absent the value when the key is absent; -1 makes it required */
    private static int integer(JsonNode root, String key, int absent, int min, int max, List<ConfigProblem> problems) {
        JsonNode v = root.get(key);
        if (v == null) {
            if (absent < 0) {
                problems.add(error(key, "missing: how many trials to draw"));
            }
            return Math.max(absent, 0);
        }
        if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < min || v.asInt() > max) {
            problems.add(error(key, String.format(Locale.ROOT, "must be a whole number between %d and %d", min, max)));
            return min;
        }
        return v.asInt();
    }

    private static ConfigProblem located(ConfigProblem p, JsonLocations locations) {
        JsonLocations.Position at = locations.of(p.path());
        return at == null ? p : p.at(at.line(), at.column());
    }

    static ConfigProblem error(String path, String message) {
        return new ConfigProblem(ConfigProblem.Severity.ERROR, path, message, 0, 0);
    }
}
