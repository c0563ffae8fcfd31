package org.traindeck.engine.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

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
            return values.entrySet().stream().map(e -> e.getKey() + "=" + show(e.getValue())).collect(Collectors.joining(", "));
        }
    }

    private SweepTrials() {
    }

    public static List<Trial> expand(SweepSpec spec) {
        List<Map<String, JsonNode>> combos = spec.method() == SweepSpec.Method.GRID ? grid(spec) : random(spec);
        List<Trial> trials = new ArrayList<>();
        List<ConfigProblem> problems = new ArrayList<>();
        for (int i = 0; i < combos.size(); i++) {
            int number = i + 1;
            String label = spec.name() + "-" + number;
            Map<String, JsonNode> values = combos.get(i);
            String where = "trial " + number + " (" + values.entrySet().stream().map(e -> e.getKey() + "=" + show(e.getValue()))
                    .collect(Collectors.joining(", ")) + ")";
            ObjectNode config = spec.base().deepCopy();
            boolean placed = true;
            for (Map.Entry<String, JsonNode> v : values.entrySet()) {
                String missing = JsonPaths.set(config, v.getKey(), v.getValue());
                if (missing != null) {
                    problems.add(new ConfigProblem(ConfigProblem.Severity.ERROR, "parameters." + v.getKey(), missing, 0, 0));
                    placed = false;
                }
            }
            if (!placed) {
                break; // the same path fails in every trial: once is enough
            }
            config.set("name", TextNode.valueOf(label));
            ValidationResult result = ConfigParser.parse(config.toPrettyString(), spec.baseDir());
            for (ConfigProblem p : result.errors()) {
                problems.add(new ConfigProblem(ConfigProblem.Severity.ERROR, p.path(), where + ": " + p.message(), 0, 0));
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

    private static List<Map<String, JsonNode>> grid(SweepSpec spec) {
        List<Map<String, JsonNode>> combos = new ArrayList<>();
        combos.add(new LinkedHashMap<>());
        for (Map.Entry<String, SweepSpec.Values> p : ordered(spec).entrySet()) {
            List<Map<String, JsonNode>> next = new ArrayList<>();
            for (Map<String, JsonNode> c : combos) {
                for (JsonNode v : ((SweepSpec.Listed) p.getValue()).values()) {
                    Map<String, JsonNode> m = new LinkedHashMap<>(c);
                    m.put(p.getKey(), v);
                    next.add(m);
                }
            }
            combos = next;
        }
        if (combos.size() > 10_000) {
            throw new InvalidConfigException("parameters", "the grid has " + combos.size() + " combinations; at most 10000 "
                    + "(use \"method\": \"random\" with \"trials\")");
        }
        return combos;
    }

    private static List<Map<String, JsonNode>> random(SweepSpec spec) {
        Random random = new Random(spec.seed());
        List<Map<String, JsonNode>> combos = new ArrayList<>();
        for (int t = 0; t < spec.trials(); t++) {
            Map<String, JsonNode> m = new LinkedHashMap<>();
            for (Map.Entry<String, SweepSpec.Values> p : ordered(spec).entrySet()) {
                if (p.getValue() instanceof SweepSpec.Listed l) {
                    m.put(p.getKey(), l.values().get(random.nextInt(l.values().size())));
                } else if (p.getValue() instanceof SweepSpec.Range r) {
                    double u = random.nextDouble();
                    m.put(p.getKey(), DoubleNode.valueOf(round(r.log()
                            ? Math.exp(Math.log(r.min()) + u * (Math.log(r.max()) - Math.log(r.min())))
                            : r.min() + u * (r.max() - r.min()))));
                }
            }
            combos.add(m);
        }
        return combos;
    }

    /** The parameters in the file's order (the parsed map does not keep it). */
    private static Map<String, SweepSpec.Values> ordered(SweepSpec spec) {
        Map<String, SweepSpec.Values> ordered = new LinkedHashMap<>();
        spec.parameterOrder().forEach(k -> ordered.put(k, spec.parameters().get(k)));
        return ordered;
    }

    /** Four significant digits: a drawn learning rate reads 0.003162, not 0.0031622776601683794. */
    private static double round(double v) {
        return Double.parseDouble(String.format(Locale.ROOT, "%.4g", v));
    }

    static String show(JsonNode v) {
        if (v.isBigDecimal()) {
            return v.decimalValue().toPlainString();
        }
        return v.isTextual() ? v.asText() : v.toString();
    }
}
