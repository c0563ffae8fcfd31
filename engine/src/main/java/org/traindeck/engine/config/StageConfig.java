package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * One stage of a run. {@code batchSize} is per device. {@code clipNorm} = 0 turns clipping off; otherwise the
 * gradient's global L2 norm is scaled down to it. {@code data} (nullable) replaces the run's data for this stage.
 * {@code ema} (nullable) keeps a moving average of the weights during the stage. {@code model} (nullable) starts a
 * network of the stage's own (a cascade's next stage), which the stages after it without one train on.
 */
@JsonPropertyOrder({
    "name",
    "epochs",
    "batchSize",
    "optimizer",
    "schedule",
    "gradientClipping",
    "accumulationSteps",
    "precision",
    "augmentation",
    "validationInterval",
    "data",
    "model",
    "ema"
})
public record StageConfig(
        String name,
        int epochs,
        int batchSize,
        OptimizerConfig optimizer,
        ScheduleConfig schedule,
        @JsonProperty("gradientClipping") double clipNorm,
        int accumulationSteps,
        Precision precision,
        @JsonInclude(JsonInclude.Include.NON_NULL) AugmentationConfig augmentation,
        int validationInterval,
        @JsonInclude(JsonInclude.Include.NON_NULL) DataConfig data,
        @JsonInclude(JsonInclude.Include.NON_NULL) EmaConfig ema,
        @JsonInclude(JsonInclude.Include.NON_NULL) ModelConfig model) {

    /** A stage that trains the previous stage's network on. */
    public StageConfig(
            String name,
            int epochs,
            int batchSize,
            OptimizerConfig optimizer,
            ScheduleConfig schedule,
            double clipNorm,
            int accumulationSteps,
            Precision precision,
            AugmentationConfig augmentation,
            int validationInterval,
            DataConfig data,
            EmaConfig ema) {
        this(
                name,
                epochs,
                batchSize,
                optimizer,
                schedule,
                clipNorm,
                accumulationSteps,
                precision,
                augmentation,
                validationInterval,
                data,
                ema,
                null);
    }

    /** A stage without a weight average. */
    public StageConfig(
            String name,
            int epochs,
            int batchSize,
            OptimizerConfig optimizer,
            ScheduleConfig schedule,
            double clipNorm,
            int accumulationSteps,
            Precision precision,
            AugmentationConfig augmentation,
            int validationInterval,
            DataConfig data) {
        this(
                name,
                epochs,
                batchSize,
                optimizer,
                schedule,
                clipNorm,
                accumulationSteps,
                precision,
                augmentation,
                validationInterval,
                data,
                null);
    }

    public enum Precision {
        FLOAT32("float32"),
        FLOAT16("float16");

        @JsonValue
        public final String json;

        Precision(String json) {
            this.json = json;
        }
    }
}
