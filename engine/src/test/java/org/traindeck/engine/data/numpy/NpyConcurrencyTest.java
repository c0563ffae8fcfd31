package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Threads sharing one array (a prefetching loader and the training thread) each read their own samples, in C and Fortran
 * order, through windows small enough that every read crosses boundaries; every value must be right. No sleeps: the
 * threads start together at a barrier and run a fixed number of reads.
 */
class NpyConcurrencyTest {

    private static final int THREADS = 4;
    private static final int ROUNDS = 2_000;

    @ParameterizedTest
    @ValueSource(strings = {"f4_le_c.npy", "f8_be_f.npy", "i2_be_f.npy", "rank4_f4_f.npy"})
    void threadsReadingDifferentSamplesGetCorrectValues(String name) throws Exception {
        try (NpyArray a = NpyArray.open(NpyFixtures.file(name), 20)) {
            int samples = (int) a.sampleCount();
            int length = (int) a.sampleLength();
            char kind = name.startsWith("rank4") ? 'f' : name.charAt(0);
            CyclicBarrier start = new CyclicBarrier(THREADS);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<Integer>> results = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    results.add(pool.submit(() -> {
                        float[] out = new float[length];
                        float[] pair = new float[2 * length];
                        long[] longs = new long[length];
                        start.await();
                        int checked = 0;
                        for (int r = 0; r < ROUNDS; r++) {
                            int i = (thread + r * THREADS) % samples;
                            a.readSample(i, out, 0);
                            for (int p = 0; p < length; p++) {
                                assertThat((double) out[p])
                                        .isEqualTo(NpyFixtures.expected(kind, (long) i * length + p));
                            }
                            if (i + 1 < samples) {
                                a.readSamples(i, 2, pair, 0);
                                for (int p = 0; p < 2 * length; p++) {
                                    assertThat((double) pair[p])
                                            .isEqualTo(NpyFixtures.expected(kind, (long) i * length + p));
                                }
                            }
                            if (a.dtype().isIntegral()) {
                                a.readSampleLongs(i, longs, 0);
                                assertThat(longs[length - 1])
                                        .isEqualTo((long) NpyFixtures.expected(kind, (long) i * length + length - 1));
                            }
                            checked++;
                        }
                        return checked;
                    }));
                }
                for (Future<Integer> f : results) {
                    assertThat(f.get()).isEqualTo(ROUNDS);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"arrays.npz", "arrays_compressed.npz"})
    void threadsOpeningTheSameArchiveMemberShareOneArray(String name) throws Exception {
        try (NpzArchive npz = NpzArchive.open(NpyFixtures.file(name))) {
            CyclicBarrier start = new CyclicBarrier(THREADS);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<NpyArray>> opened = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    opened.add(pool.submit(() -> {
                        start.await();
                        return npz.array("xf");
                    }));
                }
                NpyArray first = opened.get(0).get();
                for (Future<NpyArray> f : opened) {
                    assertThat(f.get()).isSameAs(first);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
