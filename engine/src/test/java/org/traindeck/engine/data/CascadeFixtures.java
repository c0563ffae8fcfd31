package org.traindeck.engine.data;

import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;

/** The pictures of the cascade tests, written as NumPy writes them. */
public final class CascadeFixtures {

    private CascadeFixtures() {}

    /** 64 pictures of a bright square on a dark ground in [−1, 1]: {@code high} 16×16, {@code low} the same pooled to 8×8,
     * {@code code} [64, 2] where the square is. */
    public static void pictures(Path file) throws Exception {
        int n = 64;
        double[] high = new double[n * 256];
        double[] low = new double[n * 64];
        double[] code = new double[n * 2];
        SplittableRandom r = new SplittableRandom(11);
        for (int i = 0; i < n; i++) {
            int x = r.nextInt(10);
            int y = r.nextInt(10);
            code[i * 2] = x / 10.0;
            code[i * 2 + 1] = y / 10.0;
            for (int p = 0; p < 256; p++) {
                boolean in = p / 16 >= y && p / 16 < y + 6 && p % 16 >= x && p % 16 < x + 6;
                high[i * 256 + p] = (in ? 0.8 : -0.8) + 0.1 * r.nextDouble();
            }
            for (int q = 0; q < 64; q++) {
                int row = q / 8 * 2;
                int col = q % 8 * 2;
                double sum = 0;
                for (int dy = 0; dy < 2; dy++) {
                    for (int dx = 0; dx < 2; dx++) {
                        sum += high[i * 256 + (row + dy) * 16 + col + dx];
                    }
                }
                low[i * 64 + q] = sum / 4;
            }
        }
        NamedInputFixtures.npz(
                file,
                Map.of(
                        "high", new NamedInputFixtures.Array("<f4", new long[] {n, 16, 16, 1}, high),
                        "low", new NamedInputFixtures.Array("<f4", new long[] {n, 8, 8, 1}, low),
                        "code", new NamedInputFixtures.Array("<f4", new long[] {n, 2}, code)));
    }
}
