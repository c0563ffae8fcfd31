package org.traindeck.engine.train.batch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Two samples of 3 classes at 2 positions, laid out [n, classes, positions]: a class's values lie 2 apart. */
class ClassScoresTest {

    private static final int CLASSES = 3;
    private static final int POSITIONS = 2;

    @Test
    void theLabelIsTheClassWhoseOneHotValueIsSetAtThatPosition() {
        float[] labels = {
            0, 1, 0, 0, 1, 0, // sample 0: class 2 at position 0, class 0 at position 1
            0, 0, 0, 1, 0, 0 // sample 1: nothing at position 0, class 1 at position 1
        };

        assertThat(ClassScores.label(labels, 0, CLASSES, POSITIONS)).isEqualTo(2);
        assertThat(ClassScores.label(labels, 1, CLASSES, POSITIONS)).isEqualTo(0);
        assertThat(ClassScores.label(labels, 6, CLASSES, POSITIONS))
                .as("no label set")
                .isEqualTo(0);
        assertThat(ClassScores.label(labels, 7, CLASSES, POSITIONS)).isEqualTo(1);
    }

    @Test
    void theBestIsTheHighestScoreAndTheFirstOfATie() {
        float[] out = {
            0.1f, 0.5f, 0.7f, 0.2f, 0.2f, 0.3f, // sample 0: class 1 at position 0, class 0 at position 1
            0.4f, 0.1f, 0.4f, 0.1f, 0.2f, 0.8f // sample 1: classes 0 and 1 tie at position 0, class 2 at 1
        };

        assertThat(ClassScores.best(out, 0, CLASSES, POSITIONS)).isEqualTo(1);
        assertThat(ClassScores.best(out, 1, CLASSES, POSITIONS)).isEqualTo(0);
        assertThat(ClassScores.best(out, 6, CLASSES, POSITIONS)).as("a tie").isEqualTo(0);
        assertThat(ClassScores.best(out, 7, CLASSES, POSITIONS)).isEqualTo(2);
    }
}
