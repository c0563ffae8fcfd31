package org.traindeck.engine.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;

/**
 * The trials of a sweep: every combination (grid), or {@code trials} draws with the sweep's seed (random, so the
 * same file gives the same trials). Each trial's config is the base with its values set and the name
 * {@code <sweep>-<n>}, and every one is validated before any runs: a bad value is an error naming the trial and the
 * parameter.
 */
public final class SweepTrials {

    /** One trial: its number (from 1), the values it sets, and its checked config. */
    public record Trial(int number, String label, Map<String, JsonNode> values, RunConfig config) {

        public Trial {
            values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        }

        /** "stages[0].optimizer.learningRate=0.002, model.dropout=0.1" */
        public String describe() {
            return values.entrySet().stream()
                    .map(e -> e.getKey() + "=" + show(e.getValue()))
                    .collect(Collectors.joining(", "));
        }
    }

    private SweepTrials() {}

    /** How many trials the sweep has, counted without making them ({@link Long#MAX_VALUE} when a long cannot hold it). */
    public static long count(SweepSpec spec) {
        return TrialSpace.count(spec.method(), spec.parameters(), spec.trials());
    }

    /** Every trial, checked; a sweep above its maxTrials is refused before one is made. */
    public static List<Trial> expand(SweepSpec spec) {
        long count = count(spec);
        if (count > spec.maxTrials()) { // SweepParser refuses it first, located; this holds for a spec made otherwise
            throw spec.method() == SweepSpec.Method.GRID
                    ? new InvalidConfigException(
                            "parameters", tooMany(count, TrialSpace.factors(spec.parameters()), spec.maxTrials()))
                    : new InvalidConfigException("trials", count + " draws, above maxTrials " + spec.maxTrials());
        }
        List<Trial> trials = new ArrayList<>();
        List<ConfigProblem> problems = new ArrayList<>();
        Iterator<Map<String, JsonNode>> combos = TrialSpace.values(spec);
        for (int number = 1; combos.hasNext(); number++) {
            String label = spec.name() + "-" + number;
            Map<String, JsonNode> values = combos.next();
            String where = "trial " + number + " ("
                    + values.entrySet().stream()
                            .map(e -> e.getKey() + "=" + show(e.getValue()))
                            .collect(Collectors.joining(", "))
                    + ")";
            ObjectNode config = spec.base().deepCopy();
            boolean placed = true;
            for (Map.Entry<String, JsonNode> v : values.entrySet()) {
                String missing = JsonPaths.set(config, v.getKey(), v.getValue());
                if (missing != null) {
                    problems.add(
                            new ConfigProblem(ConfigProblem.Severity.ERROR, "parameters." + v.getKey(), missing, 0, 0));
                    placed = false;
                }
            }
            if (!placed) {
                break; // the same path fails in every trial: once is enough
            }
            config.set("name", TextNode.valueOf(label));
            ValidationResult result = ConfigParser.parse(config.toPrettyString(), spec.baseDir());
            for (ConfigProblem p : result.errors()) {
                problems.add(
                        new ConfigProblem(ConfigProblem.Severity.ERROR, p.path(), where + ": " + p.message(), 0, 0));
            }
            if (result.isValid()) {
                trials.add(new Trial(number, label, values, result.config()));
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidConfigException(problems);
        }
        return trials;
    }

    /** The message refusing a grid of {@code count} trials; {@code factors} is "1000 × 1000 × 1000". */
    static String tooMany(long count, String factors, int maxTrials) {
        String counted = count == Long.MAX_VALUE ? "more than " + Long.MAX_VALUE : Long.toString(count);
        return "the grid makes " + counted + " trials (" + factors + "), above maxTrials " + maxTrials
                + ": try fewer values, "
                + "use \"method\": \"random\" with \"trials\", or raise \"maxTrials\" (at most "
                + SweepSpec.MAX_TRIALS_LIMIT + ")";
    }

    static String show(JsonNode v) {
        if (v.isBigDecimal()) {
            return v.decimalValue().toPlainString();
        }
        return v.isTextual() ? v.asText() : v.toString();
    }
}
