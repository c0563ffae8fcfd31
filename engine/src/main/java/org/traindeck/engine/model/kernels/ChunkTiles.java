package org.traindeck.engine.model.kernels;

import java.util.Arrays;

/**
 * Each thread's chunk-sized arrays for {@link TransformerBlockMath}'s tiles and accumulators, kept from call to call:
 * a fresh tile a call was 15 % of the x-ray stage-1 step's Java allocations. Per thread, because a cpu:N run trains one
 * replica per thread; three slots, because a layer norm's backward pass holds three tiles at once. No caller holds a
 * slot across another call into this class's users.
 */
public final class ChunkTiles {

    public static final int SLOTS = 3;

    private static final ThreadLocal<float[][]> KEPT = ThreadLocal.withInitial(() -> new float[SLOTS][0]);

    private ChunkTiles() {}

    /** The floats in a tile of rows of c: {@link TransformerBlockMath#CHUNK} rounded down to whole rows, one at least. */
    public static int length(int c) {
        return Math.max(1, TransformerBlockMath.CHUNK / c) * c;
    }

    /** Slot {@code slot}'s array, at least {@link #length}(c) long, with v repeated over its first length(c) floats. */
    public static float[] tiled(int slot, float[] v, int c) {
        float[] t = array(slot, length(c));
        for (int at = 0; at < length(c); at += c) {
            System.arraycopy(v, 0, t, at, c);
        }
        return t;
    }

    /** Slot {@code slot}'s array, its first length(c) floats zero. */
    public static float[] zeros(int slot, int c) {
        float[] t = array(slot, length(c));
        Arrays.fill(t, 0, length(c), 0f);
        return t;
    }

    private static float[] array(int slot, int n) {
        float[][] kept = KEPT.get();
        if (kept[slot].length < n) {
            kept[slot] = new float[n];
        }
        return kept[slot];
    }
}
