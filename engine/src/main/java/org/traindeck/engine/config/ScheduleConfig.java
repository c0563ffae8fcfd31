package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** A learning-rate schedule, relative to its stage. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = ScheduleConfig.Constant.class, name = "constant"),
    @JsonSubTypes.Type(value = ScheduleConfig.Step.class, name = "step"),
    @JsonSubTypes.Type(value = ScheduleConfig.WarmupCosine.class, name = "warmupCosine")
})
public sealed interface ScheduleConfig {

    String type();

    record Constant() implements ScheduleConfig {
        @Override
        public String type() {
            return "constant";
        }
    }

    /** Multiply the rate by {@code gamma} every {@code everyEpochs} epochs. */
    record Step(double everyEpochs, double gamma) implements ScheduleConfig {
        @Override
        public String type() {
            return "step";
        }
    }

    /**
     * Linear warmup over {@code warmupSteps} steps or {@code warmupEpochs} epochs (exactly one is set; the other is
     * null), then cosine decay to {@code minLearningRate} at the end of the stage.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record WarmupCosine(Integer warmupSteps, Double warmupEpochs, double minLearningRate) implements ScheduleConfig {
        @Override
        public String type() {
            return "warmupCosine";
        }
    }
}
