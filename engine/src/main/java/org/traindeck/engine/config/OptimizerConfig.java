package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The optimizer of a stage. Fields that a type does not use are rejected when parsing, so the record's unused
 * fields simply hold their defaults.
 */
public record OptimizerConfig(
        String type,
        double learningRate,
        @JsonIgnore double momentum,
        @JsonIgnore double beta1,
        @JsonIgnore double beta2,
        @JsonIgnore double epsilon,
        @JsonIgnore double weightDecay) {

    /** Which optional fields each type accepts (besides type, learningRate and weightDecay). */
    public static final Map<String, Set<String>> FIELDS = Map.of(
            "adam", Set.of("beta1", "beta2", "epsilon"),
            "adamw", Set.of("beta1", "beta2", "epsilon"),
            "sgd", Set.of(),
            "nesterovs", Set.of("momentum"),
            "rmsprop", Set.of("epsilon"));

    /** The options this type takes, then weightDecay: a config written back names only what its type reads. */
    @JsonAnyGetter
    Map<String, Double> typeOptions() {
        Map<String, Double> all = Map.of("momentum", momentum, "beta1", beta1, "beta2", beta2, "epsilon", epsilon);
        Map<String, Double> options = new LinkedHashMap<>();
        FIELDS.get(type).stream().sorted().forEach(field -> options.put(field, all.get(field)));
        options.put("weightDecay", weightDecay);
        return options;
    }

    public boolean usesEpsilon() {
        return FIELDS.get(type).contains("epsilon");
    }

    /** Same optimizer apart from the learning rate: its state (moments) can carry over from one stage to the next. */
    public boolean sameStateShapeAs(OptimizerConfig other) {
        return other != null
                && type.equals(other.type)
                && momentum == other.momentum
                && beta1 == other.beta1
                && beta2 == other.beta2
                && epsilon == other.epsilon
                && weightDecay == other.weightDecay;
    }
}
