package org.traindeck.engine.use.predict;

/**
 * How {@code predict} samples a diffusion model: {@code count} samples of an unconditional model (a conditional one
 * makes one per conditioning example), over {@code steps} timesteps, with the {@code sampler} "ddim" (η = 0) or
 * "ddpm", from the starting noise {@code seed} gives; for a cascade, with {@code allStages}, every stage's samples
 * written, not only the last's.
 */
public record Generation(int count, int steps, String sampler, long seed, boolean allStages) {

    public static final Generation DEFAULT = new Generation(0, 50, "ddim", 0);

    /** Only the last stage's samples of a cascade written. */
    public Generation(int count, int steps, String sampler, long seed) {
        this(count, steps, sampler, seed, false);
    }

    /** The same, the starting noise from {@code newSeed}. */
    Generation withSeed(long newSeed) {
        return new Generation(count, steps, sampler, newSeed, allStages);
    }
}
