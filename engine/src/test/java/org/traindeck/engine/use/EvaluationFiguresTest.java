package org.traindeck.engine.use;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.api.runs.ClassFigures;
import org.traindeck.engine.config.Task;

/** The evaluation's figures on sets small enough to work out by hand (the numbers in the comments). */
class EvaluationFiguresTest {

    /** Four samples of three classes: true 0,1,2,1; predicted 0,0,2,1. */
    private static final float[] OUT = {0.7f, 0.2f, 0.1f, 0.5f, 0.4f, 0.1f, 0.1f, 0.1f, 0.8f, 0.2f, 0.6f, 0.2f};

    private static final float[] LABELS = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0};

    @Test
    void classesByHand() {
        ClassCounts c = new ClassCounts(3, 1, true);
        c.add(OUT, LABELS, 4);

        Map<String, Double> f = c.figures(Task.CLASSIFICATION);
        assertThat(f.get("val/accuracy")).isEqualTo(0.75);
        assertThat(f.get("val/loss"))
                .isCloseTo(-(Math.log(0.7) + Math.log(0.4) + Math.log(0.8) + Math.log(0.6)) / 4, within(1e-6));
        assertThat(f).doesNotContainKey("val/top5_accuracy");
        assertThat(c.matrix()).containsExactly(List.of(1L, 0L, 0L), List.of(1L, 1L, 0L), List.of(0L, 0L, 1L));
        List<ClassFigures> per = c.perClass(List.of("cat", "dog", "eel"));
        // class 0: support 1, predicted twice, right once
        assertThat(per.get(0)).isEqualTo(new ClassFigures(0, "cat", 1, 2, 0.5, 1.0, 2.0 / 3, 0.5));
        assertThat(per.get(1)).isEqualTo(new ClassFigures(1, "dog", 2, 1, 1.0, 0.5, 2.0 / 3, 0.5));
        assertThat(per.get(2)).isEqualTo(new ClassFigures(2, "eel", 1, 1, 1.0, 1.0, 1.0, 1.0));
    }

    @Test
    void masksByHand() {
        // the same four decisions as two images of two pixels each, laid out [n, classes, pixels]
        float[] out = new float[12];
        float[] labels = new float[12];
        for (int s = 0; s < 4; s++) {
            int image = s / 2;
            int pixel = s % 2;
            for (int k = 0; k < 3; k++) {
                out[(image * 3 + k) * 2 + pixel] = OUT[s * 3 + k];
                labels[(image * 3 + k) * 2 + pixel] = LABELS[s * 3 + k];
            }
        }
        ClassCounts c = new ClassCounts(3, 2, true);
        c.add(out, labels, 2);

        Map<String, Double> f = c.figures(Task.SEGMENTATION);
        assertThat(f.get("val/pixel_accuracy")).isEqualTo(0.75);
        assertThat(f.get("val/mean_iou")).isCloseTo((0.5 + 0.5 + 1) / 3, within(1e-12));
        assertThat(c.matrix()).containsExactly(List.of(1L, 0L, 0L), List.of(1L, 1L, 0L), List.of(0L, 0L, 1L));
    }

    @Test
    void aClassNeverSeenNorPredictedHasNoIouAndDoesNotCountInTheMean() {
        ClassCounts c = new ClassCounts(4, 1, true);
        c.add(new float[] {0.9f, 0.1f, 0, 0, 0.1f, 0.9f, 0, 0}, new float[] {1, 0, 0, 0, 0, 1, 0, 0}, 2);

        assertThat(c.perClass(null).get(3).iou()).isNaN();
        assertThat(c.perClass(null).get(3).precision()).isNaN();
        assertThat(c.figures(Task.SEGMENTATION).get("val/mean_iou")).isEqualTo(1.0);
    }

    @Test
    void topFiveCountsTheTrueClassAmongTheFiveMostProbable() {
        // 7 classes; sample 0's true class is 2nd most probable, sample 1's is the least probable
        float[] out = {0.3f, 0.4f, 0.1f, 0.05f, 0.05f, 0.05f, 0.05f, 0.3f, 0.2f, 0.2f, 0.1f, 0.1f, 0.09f, 0.01f};
        float[] labels = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        ClassCounts c = new ClassCounts(7, 1, true);
        c.add(out, labels, 2);

        Map<String, Double> f = c.figures(Task.CLASSIFICATION);
        assertThat(f.get("val/accuracy")).isEqualTo(0.0);
        assertThat(f.get("val/top5_accuracy")).isEqualTo(0.5);
    }

    @Test
    void tokensGiveLossPerTokenPerplexityAndAccuracy() {
        ClassCounts c = new ClassCounts(3, 1, false);
        c.add(OUT, LABELS, 4);

        Map<String, Double> f = c.figures(Task.SEQUENCE);
        assertThat(f.keySet()).containsExactly("val/loss", "val/perplexity", "val/accuracy");
        assertThat(f.get("val/perplexity")).isCloseTo(Math.exp(f.get("val/loss")), within(1e-12));
        assertThat(f.get("val/accuracy")).isEqualTo(0.75);
    }

    @Test
    void regressionByHand() {
        // y = 1, 2, 3, 4; predicted 1.5, 2, 2.5, 5: squared errors 0.25, 0, 0.25, 1; the total sum of squares is 5
        ValueFigures v = new ValueFigures(false, 1);
        v.add(new float[] {1.5f, 2}, new float[] {1, 2}, 2);
        v.add(new float[] {2.5f, 5}, new float[] {3, 4}, 2);

        Map<String, Double> f = v.figures();
        assertThat(f.get("val/mse")).isCloseTo(0.375, within(1e-12));
        assertThat(f.get("val/mae")).isCloseTo(0.5, within(1e-12));
        assertThat(f.get("val/r2")).isCloseTo(0.7, within(1e-12));
    }

    @Test
    void r2IsAveragedOverTargets() {
        // column 0 as above (R² 0.7); column 1 predicted exactly (R² 1)
        ValueFigures v = new ValueFigures(false, 2);
        v.add(new float[] {1.5f, 10, 2, 20, 2.5f, 30, 5, 40}, new float[] {1, 10, 2, 20, 3, 30, 4, 40}, 4);

        assertThat(v.figures().get("val/r2")).isCloseTo(0.85, within(1e-12));
    }

    @Test
    void reconstructionPsnrUsesTheDataRange() {
        // range 1, MSE 0.01: 20 dB
        ValueFigures v = new ValueFigures(true, 1);
        v.add(new float[] {0.1f, 0.9f}, new float[] {0, 1}, 1);

        Map<String, Double> f = v.figures();
        assertThat(f.get("val/mse")).isCloseTo(0.01, within(1e-7));
        assertThat(f.get("val/psnr")).isCloseTo(20, within(1e-4));
        assertThat(f).doesNotContainKey("val/r2");
    }
}
