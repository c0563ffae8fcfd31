package org.traindeck.engine.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.config.AugmentationConfig;

class AugmenterTest {

    private static final SampleShape.Image SQUARE = new SampleShape.Image(1, 3, 3);

    private static float[] ramp() {
        float[] img = new float[9];
        for (int i = 0; i < 9; i++) {
            img[i] = i + 1;
        }
        return img;
    }

    /** Applies the augmenter with seeds until every outcome in {@code want} was seen. */
    private static Set<String> outcomes(AugmentationConfig config, float[] image, int tries) {
        Set<String> seen = new HashSet<>();
        Augmenter a = new Augmenter(config, SQUARE);
        for (int seed = 0; seed < tries; seed++) {
            float[] copy = image.clone();
            a.apply(copy, 0, new SplittableRandom(seed));
            seen.add(Arrays.toString(copy));
        }
        return seen;
    }

    @Test
    void rotationsGiveTheFourQuarterTurns() {
        var seen = outcomes(new AugmentationConfig(true, false, false, 0, 0), ramp(), 200);
        assertThat(seen)
                .containsExactlyInAnyOrder(
                        Arrays.toString(new float[] {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                        Arrays.toString(new float[] {7, 4, 1, 8, 5, 2, 9, 6, 3}),
                        Arrays.toString(new float[] {9, 8, 7, 6, 5, 4, 3, 2, 1}),
                        Arrays.toString(new float[] {3, 6, 9, 2, 5, 8, 1, 4, 7}));
    }

    @Test
    void flipsMirrorTheImage() {
        assertThat(outcomes(new AugmentationConfig(false, true, false, 0, 0), ramp(), 100))
                .containsExactlyInAnyOrder(
                        Arrays.toString(new float[] {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                        Arrays.toString(new float[] {3, 2, 1, 6, 5, 4, 9, 8, 7}));
        assertThat(outcomes(new AugmentationConfig(false, false, true, 0, 0), ramp(), 100))
                .containsExactlyInAnyOrder(
                        Arrays.toString(new float[] {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                        Arrays.toString(new float[] {7, 8, 9, 4, 5, 6, 1, 2, 3}));
    }

    @Test
    void brightnessAndContrastStayWithinTheirBounds() {
        Augmenter brightness = new Augmenter(new AugmentationConfig(false, false, false, 0.2, 0), SQUARE);
        Augmenter contrast = new Augmenter(new AugmentationConfig(false, false, false, 0, 0.5), SQUARE);
        boolean changed = false;
        for (int seed = 0; seed < 50; seed++) {
            float[] b = ramp();
            brightness.apply(b, 0, new SplittableRandom(seed));
            double factor = b[0] / 1.0;
            assertThat(factor).isBetween(0.8, 1.2);
            for (int i = 0; i < 9; i++) {
                assertThat((double) b[i]).isCloseTo((i + 1) * factor, within(1e-4));
            }
            float[] c = ramp();
            contrast.apply(c, 0, new SplittableRandom(seed));
            // contrast scales distances from the mean (5) and keeps the mean
            assertThat((double) c[4]).isCloseTo(5.0, within(1e-4));
            double scale = (c[8] - 5.0) / 4.0;
            assertThat(scale).isBetween(0.5, 1.5);
            changed |= Math.abs(scale - 1) > 1e-3;
        }
        assertThat(changed).isTrue();
    }

    @Test
    void theSameSeedGivesTheSameAugmentation() {
        Augmenter a = new Augmenter(new AugmentationConfig(true, true, true, 0.1, 0.1), SQUARE);
        float[] x = ramp();
        float[] y = ramp();
        a.apply(x, 0, new SplittableRandom(99));
        a.apply(y, 0, new SplittableRandom(99));
        assertThat(x).containsExactly(y);
    }

    @Test
    void onlyTheAddressedSampleChanges() {
        Augmenter a = new Augmenter(new AugmentationConfig(false, false, true, 0, 0), SQUARE);
        float[] two = new float[18];
        System.arraycopy(ramp(), 0, two, 9, 9);
        for (int seed = 0; seed < 10; seed++) {
            float[] copy = two.clone();
            a.apply(copy, 9, new SplittableRandom(seed));
            assertThat(Arrays.copyOfRange(copy, 0, 9)).containsOnly(0f);
        }
    }

    /** One augmenter serves the batch loader and every replica at once: each sample's result must be its own. */
    @Test
    void threadsAugmentingAtOnceGetWhatOneThreadGets() throws Exception {
        SampleShape.Image shape = new SampleShape.Image(3, 32, 32);
        Augmenter a = new Augmenter(new AugmentationConfig(true, true, true, 0, 0), shape);
        int samples = 400;
        float[] images = new float[samples * shape.pixels()];
        SplittableRandom values = new SplittableRandom(5);
        for (int i = 0; i < images.length; i++) {
            images[i] = (float) values.nextDouble();
        }
        float[] alone = images.clone();
        for (int s = 0; s < samples; s++) {
            a.apply(alone, s * shape.pixels(), new SplittableRandom(s));
        }
        int threads = 4;
        float[] together = images.clone();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                done.add(pool.submit(() -> {
                    for (int s = first; s < samples; s += threads) {
                        a.apply(together, s * shape.pixels(), new SplittableRandom(s));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        int differing = 0;
        for (int s = 0; s < samples; s++) {
            int from = s * shape.pixels();
            if (!Arrays.equals(together, from, from + shape.pixels(), alone, from, from + shape.pixels())) {
                differing++;
            }
        }
        assertThat(differing)
                .as("samples augmented differently on several threads")
                .isZero();
    }
}
