package org.traindeck.engine.config;

/**
 * A stage's exponential moving average of the weights: during the stage's first {@code startStep} steps it copies
 * the weights, then every {@code everySteps} steps it becomes {@code decay · ema + (1 − decay) · weights}.
 */
public record EmaConfig(double decay, int startStep, int everySteps) {

    /** Whether the stage's {@code stageStep}-th step (from 1) updates the average; before startStep it copies instead. */
    public boolean updatesAt(long stageStep) {
        return stageStep > startStep && (stageStep - startStep) % everySteps == 0;
    }
}
