package org.traindeck.engine.config;

/** A learning-rate schedule, relative to its stage. */
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
    record WarmupCosine(Integer warmupSteps, Double warmupEpochs, double minLearningRate) implements ScheduleConfig {
        @Override
        public String type() {
            return "warmupCosine";
        }
    }
}
