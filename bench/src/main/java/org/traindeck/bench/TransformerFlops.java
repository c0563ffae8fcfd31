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
}
