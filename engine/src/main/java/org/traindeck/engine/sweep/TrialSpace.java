package org.traindeck.engine.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * The values of a sweep's trials, counted without being listed and produced one at a time: a grid's trial is its
 * index read as a number whose digits are the parameters' value indices (the last parameter changing fastest), a
 * random sweep's the next draws from its seeded generator.
 */
final class TrialSpace {

    private TrialSpace() {}

    /** How many trials the parameters make; {@link Long#MAX_VALUE} when there are more than a long holds. */
    static long count(SweepSpec.Method method, Map<String, SweepSpec.Values> parameters, int randomTrials) {
        if (method == SweepSpec.Method.RANDOM) {
            return randomTrials;
        }
        long count = 1;
        for (SweepSpec.Values v : parameters.values()) {
            if (!(v instanceof SweepSpec.Listed listed)) {
                continue; // the parser refuses ranges in a grid
            }
            try {
                count = Math.multiplyExact(count, listed.values().size());
            } catch (ArithmeticException overflow) {
                return Long.MAX_VALUE;
            }
        }
        return count;
    }

    /** "1000 × 1000 × 1000": the factors of a grid's count, for the message that refuses it. */
    static String factors(Map<String, SweepSpec.Values> parameters) {
        return parameters.values().stream()
                .filter(v -> v instanceof SweepSpec.Listed)
                .map(v -> Integer.toString(((SweepSpec.Listed) v).values().size()))
                .collect(Collectors.joining(" × "));
    }

    /** The trials' values in order, made as they are asked for. */
    static Iterator<Map<String, JsonNode>> values(SweepSpec spec) {
        Map<String, SweepSpec.Values> ordered = new LinkedHashMap<>();
        spec.parameterOrder().forEach(k -> ordered.put(k, spec.parameters().get(k)));
        long count = count(spec.method(), ordered, spec.trials());
        Random random = new Random(spec.seed());
        return new Iterator<>() {
            private long next;

            @Override
            public boolean hasNext() {
                return next < count;
            }

            @Override
            public Map<String, JsonNode> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Map<String, JsonNode> values =
                        spec.method() == SweepSpec.Method.GRID ? gridTrial(ordered, next) : drawTrial(ordered, random);
                next++;
                return values;
            }
        };
    }

    private static Map<String, JsonNode> gridTrial(Map<String, SweepSpec.Values> parameters, long index) {
        List<Map.Entry<String, SweepSpec.Values>> entries = List.copyOf(parameters.entrySet());
        Map<String, JsonNode> values = new LinkedHashMap<>();
        JsonNode[] picked = new JsonNode[entries.size()];
        long rest = index;
        for (int i = entries.size() - 1; i >= 0; i--) {
            List<JsonNode> options = ((SweepSpec.Listed) entries.get(i).getValue()).values();
            picked[i] = options.get((int) (rest % options.size()));
            rest /= options.size();
        }
        for (int i = 0; i < entries.size(); i++) {
            values.put(entries.get(i).getKey(), picked[i]);
        }
        return values;
    }

    private static Map<String, JsonNode> drawTrial(Map<String, SweepSpec.Values> parameters, Random random) {
        Map<String, JsonNode> values = new LinkedHashMap<>();
        for (Map.Entry<String, SweepSpec.Values> p : parameters.entrySet()) {
            if (p.getValue() instanceof SweepSpec.Listed l) {
                values.put(p.getKey(), l.values().get(random.nextInt(l.values().size())));
            } else if (p.getValue() instanceof SweepSpec.Range r) {
                double u = random.nextDouble();
                values.put(
                        p.getKey(),
                        DoubleNode.valueOf(round(
                                r.log()
                                        ? Math.exp(Math.log(r.min()) + u * (Math.log(r.max()) - Math.log(r.min())))
                                        : r.min() + u * (r.max() - r.min()))));
            }
        }
        return values;
    }

    /** Four significant digits: a drawn learning rate reads 0.003162, not 0.0031622776601683794. */
    private static double round(double v) {
        return Double.parseDouble(String.format(Locale.ROOT, "%.4g", v));
    }
}
