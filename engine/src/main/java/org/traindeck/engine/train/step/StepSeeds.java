package org.traindeck.engine.train.step;

/**
 * The random seed of each micro-batch of a step (dropout and other random layers): a function of the run's seed, the
 * global step and the micro-batch's position in the global batch, so a resumed run draws the same numbers and the
 * draws do not depend on which device computes the micro-batch.
 */
public final class StepSeeds {

    private StepSeeds() {}

    public static long of(long runSeed, long globalStep, int microBatch) {
        return runSeed * 0x9E3779B97F4A7C15L + globalStep + microBatch * 0xD1B54A32D192ED03L;
    }
}
