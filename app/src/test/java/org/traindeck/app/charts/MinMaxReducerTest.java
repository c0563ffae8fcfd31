package org.traindeck.app.charts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class MinMaxReducerTest {

    @Test
    void everySpikeSurvivesAndThePointCountIsBoundedByThePixels() {
        int n = 1_000_000;
        double[] xs = new double[n];
        double[] ys = new double[n];
        Random r = new Random(1);
        for (int i = 0; i < n; i++) {
            xs[i] = i;
            ys[i] = Math.sin(i / 5000.0) + 0.01 * r.nextGaussian();
        }
        int[] spikes = {12_345, 500_000, 999_998};
        for (int s : spikes) {
            ys[s] = 50;
        }
        ys[777_777] = -50;
        double[] outX = new double[2 * 800 + 4];
        double[] outY = new double[2 * 800 + 4];

        int count = MinMaxReducer.reduce(xs, ys, n, 0, n - 1, 800, outX, outY);

        assertThat(count).isLessThanOrEqualTo(1600).isGreaterThan(800);
        for (int s : spikes) {
            boolean found = false;
            for (int i = 0; i < count; i++) {
                found |= outX[i] == s && outY[i] == 50;
            }
            assertThat(found).as("spike at %d", s).isTrue();
        }
        double min = Double.MAX_VALUE;
        for (int i = 0; i < count; i++) {
            min = Math.min(min, outY[i]);
            if (i > 0) {
                assertThat(outX[i]).isGreaterThan(outX[i - 1]);
            }
        }
        assertThat(min).isEqualTo(-50);
    }

    @Test
    void theBlockSummaryGivesExactlyWhatTheFullScanGives() {
        Random r = new Random(7);
        for (int trial = 0; trial < 20; trial++) {
            SeriesBuffer s = new SeriesBuffer();
            int n = 1000 + r.nextInt(300_000);
            double x = 0;
            for (int i = 0; i < n; i++) {
                x += r.nextInt(3) == 0 ? 0 : r.nextDouble() * 2;
                s.add(x, x / 7, r.nextGaussian() + (r.nextInt(5000) == 0 ? 100 : 0));
            }
            if (trial % 3 == 0) {
                s.truncateAfterStep(x * 0.8);
                s.add(x * 0.9, x, 3.0);
            }
            int columns = 100 + r.nextInt(1500);
            double from = trial % 2 == 0 ? s.step(0) : s.step(s.size() / 4);
            double to = s.step(s.size() - 1);
            double[] ax = new double[2 * columns + 4];
            double[] ay = new double[2 * columns + 4];
            double[] bx = new double[2 * columns + 4];
            double[] by = new double[2 * columns + 4];
            int a = MinMaxReducer.reduce(s.xs(false), s.values(), s.size(), from, to, columns, ax, ay);
            int b = MinMaxReducer.reduce(s, false, from, to, columns, bx, by);
            assertThat(b).as("trial %d", trial).isEqualTo(a);
            for (int i = 0; i < a; i++) {
                assertThat(bx[i]).isEqualTo(ax[i]);
                assertThat(by[i]).isEqualTo(ay[i]);
            }
        }
    }

    @Test
    void shortSeriesPassThroughAndTheVisibleRangeIsRespected() {
        double[] xs = {1, 2, 3, 4, 5};
        double[] ys = {5, 4, 3, 2, 1};
        double[] outX = new double[20];
        double[] outY = new double[20];
        assertThat(MinMaxReducer.reduce(xs, ys, 5, 0, 10, 100, outX, outY)).isEqualTo(5);
        assertThat(MinMaxReducer.reduce(xs, ys, 5, 2, 4, 100, outX, outY)).isEqualTo(3);
        assertThat(outX[0]).isEqualTo(2);
        assertThat(MinMaxReducer.reduce(xs, ys, 0, 0, 10, 100, outX, outY)).isZero();
    }

    @Test
    void debiasedEmaStartsAtTheFirstValueNotAtZero() {
        double[] values = {10, 10, 10, 20};
        double[] out = smoothed(values, 0.9);
        assertThat(out[0]).isCloseTo(10, within(1e-12));
        assertThat(out[2]).isCloseTo(10, within(1e-12));
        assertThat(out[3]).isBetween(10.0, 20.0);
        assertThat(smoothed(values, 0)).containsExactly(10, 10, 10, 20);
    }

    private static double[] smoothed(double[] values, double weight) {
        Smoothing s = new Smoothing(weight);
        double[] out = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = s.next(values[i]);
        }
        return out;
    }

    @Test
    void seriesBuffersGrowAndForgetRewoundSteps() {
        SeriesBuffer s = new SeriesBuffer();
        for (int i = 1; i <= 5000; i++) {
            s.add(i, i / 10.0, i * 2);
        }
        long v = s.version();
        s.truncateAfterStep(4000);
        assertThat(s.size()).isEqualTo(4000);
        assertThat(s.version()).isGreaterThan(v);
        assertThat(s.value(3999)).isEqualTo(8000);
        s.add(4001, 400.1, -1);
        assertThat(s.step(4000)).isEqualTo(4001);
    }
}
