package org.traindeck.bench;

/**
 * FLOPs of one training step of a transformer, counted analytically: the matrix products only (a multiply-add is 2
 * FLOPs), the backward pass twice the forward. Per token and block: q/k/v and output projections 8·d², the MLP
 * 4·d·h, attention scores and weighted values 4·T·d (the whole T×T, as the kernels compute it, causal or not). Layer
 * norm, softmax, GELU, dropout and the optimizer are left out: a lower bound of the work.
 */
final class TransformerFlops {

    private TransformerFlops() {}

    private static double blockPerToken(int width, int hidden, int tokens) {
        return 8.0 * width * width + 4.0 * width * hidden + 4.0 * tokens * width;
    }

    /** A GPT step: {@code batch} windows of {@code context} tokens, a head over {@code vocabulary}. */
    static double gpt(int batch, int context, int width, int depth, double mlpRatio, int vocabulary) {
        int hidden = (int) Math.round(width * mlpRatio);
        double forward =
                (double) batch * context * (depth * blockPerToken(width, hidden, context) + 2.0 * width * vocabulary);
        return 3 * forward;
    }

    /** A ViT step: {@code batch} images of side {@code image} and {@code channels}, patches of side {@code patch}. */
    static double vit(
            int batch,
            int image,
            int channels,
            int patch,
            int width,
            int depth,
            double mlpRatio,
            boolean classToken,
            int classes) {
        int hidden = (int) Math.round(width * mlpRatio);
        int patches = (image / patch) * (image / patch);
        int tokens = patches + (classToken ? 1 : 0);
        double perImage = 2.0 * patches * channels * patch * patch * width
                + tokens * depth * blockPerToken(width, hidden, tokens)
                + 2.0 * width * classes;
        return 3 * batch * perImage;
    }
    /**
     * A conditioned volume ViT's diffusion step (stage 1 of the x-ray cascade): {@code tokens} volume patches of
     * {@code patchValues} values and {@code contextTokens} view patches of {@code viewPatchValues}, each block's
     * self-attention, a cross-attention (queries and output 4·d² per token, keys and values 4·d² per context token,
     * scores and values 4·S·d per token) and adaLN-Zero's map (2·d·6d per example), the timestep's two dense layers,
     * unpatch3d's projection.
     */
    static double volumeDiffusion(
            int batch,
            int tokens,
            int contextTokens,
            int width,
            int depth,
            double mlpRatio,
            int patchValues,
            int viewPatchValues,
            int frequencies) {
        int hidden = (int) Math.round(width * mlpRatio);
        double cross =
                tokens * (4.0 * width * width + 4.0 * contextTokens * width) + contextTokens * 4.0 * width * width;
        double block = tokens * blockPerToken(width, hidden, tokens) + cross + 2.0 * width * 6 * width;
        double embeddings = 2.0 * tokens * patchValues * width * 2
                + 2.0 * contextTokens * viewPatchValues * width
                + 2.0 * (frequencies * width + width * width);
        return 3 * batch * (depth * block + embeddings);
    }
}
