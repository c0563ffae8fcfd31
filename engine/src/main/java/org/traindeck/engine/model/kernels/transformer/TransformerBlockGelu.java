package org.traindeck.engine.model.kernels.transformer;

import org.traindeck.engine.model.kernels.ChunkTiles;
import org.traindeck.engine.model.kernels.GeluSigmoid;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers;
import org.traindeck.engine.model.kernels.TransformerBlockMath;

/**
 * The block's GELU between its two MLP products, a chunk of rows at a time: each chunk read from the first product's
 * native memory into chunk-sized heap arrays, worked on there (in the L1 cache, where C2 vectorises the loops) and
 * written back, so each element crosses the memory bus once each way; over whole arrays the passes were bound by
 * memory bandwidth.
 */
final class TransformerBlockGelu {

    private TransformerBlockGelu() {}

    /** The GELU of u (the product) + bias written to z (native), its slope kept in geluSlope. */
    static void forward(TransformerBlockBuffers b, float[] bias, int f) {
        int count = b.rows * f;
        float[] biasTile = ChunkTiles.tiled(0, bias, f);
        int step = ChunkTiles.length(f);
        float[] u = b.local[0];
        float[] slope = b.local[1];
        float[] z = b.local[2];
        for (int at = 0; at < count; at += step) {
            int len = Math.min(step, count - at);
            b.u.buffer.get(at, u, 0, len);
            GeluSigmoid.biasGelu(u, biasTile, slope, z, len);
            System.arraycopy(slope, 0, b.geluSlope, at, len);
            b.z.buffer.put(at, z, 0, len);
        }
    }

    /** dz (native) times the GELU's derivative, in place, and its column sums (the bias gradient) into {@code sums}. */
    static void backward(TransformerBlockBuffers b, int f, float[] sums) {
        int count = b.rows * f;
        float[] acc = ChunkTiles.zeros(0, f);
        int step = ChunkTiles.length(f);
        float[] dz = b.local[0];
        float[] slope = b.local[1];
        for (int at = 0; at < count; at += step) {
            int len = Math.min(step, count - at);
            b.dz.buffer.get(at, dz, 0, len);
            System.arraycopy(b.geluSlope, at, slope, 0, len);
            for (int i = 0; i < len; i++) {
                dz[i] *= slope[i];
            }
            TransformerBlockMath.accumulate(acc, dz, len);
            b.dz.buffer.put(at, dz, 0, len);
        }
        TransformerBlockMath.fold(acc, f, sums);
    }
}
