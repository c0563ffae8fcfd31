package org.traindeck.engine.config;

/**
 * Validation samples a diffusion model during training ({@code diffusion.sampling}): the first {@code count}
 * validation examples generated from their conditioning by the {@code sampler} in {@code steps} denoising steps, every
 * {@code everyEpochs} epochs and at each stage's last, scored against the true samples (val/psnr, and
 * val/projection_error with {@code diffusion.projections}). Off unless the section is present.
 *
 * @param steps   denoising steps per sample, spread evenly over the timesteps (more than the timesteps reads as all)
 * @param sampler "ddim" (η = 0, deterministic given the starting noise) or "ddpm" (ancestral)
 */
public record DiffusionSampling(int everyEpochs, int steps, int count, String sampler) {

    /** Whether the end of 0-based {@code epoch} of a stage of {@code epochs} epochs samples. */
    public boolean dueAfter(int epoch, int epochs) {
        return (epoch + 1) % everyEpochs == 0 || epoch == epochs - 1;
    }

    public boolean ddim() {
        return !"ddpm".equals(sampler);
    }
}
