package org.traindeck.engine.config;

/**
 * One stage of a run. {@code batchSize} is per device. {@code clipNorm} = 0 turns clipping off; otherwise the
 * gradient's global L2 norm is scaled down to it. {@code data} (nullable) replaces the run's data for this stage.
 */
public record StageConfig(
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

    public enum Precision {
        FLOAT32("float32"), FLOAT16("float16");

        public final String json;

        Precision(String json) {
            this.json = json;
        }

        public static Precision of(String json) {
            return json.equals("float16") ? FLOAT16 : FLOAT32;
        }
    }
}
