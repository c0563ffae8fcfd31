package org.traindeck.engine.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How a dataset says what it holds, and why another cannot feed the network it trains. */
class DatasetWordsTest {

    private static Dataset flat(int features, int classes) {
        return ArrayDatasets.classification(
                new float[2 * features], features, new int[] {0, classes - 1}, classes, null, null);
    }

    private static Dataset images(int classes) {
        SampleShape.Image shape = new SampleShape.Image(1, 2, 3);
        return ArrayDatasets.classification(new float[2 * 6], 6, new int[] {0, 1}, classes, shape, List.of("a", "b"));
    }

    @Test
    void aDatasetSaysItsSizeShapeAndTask() {
        assertThat(flat(4, 3)).hasToString("2 samples, 4 features, 3 classes");
        assertThat(images(2)).hasToString("2 samples, images of 2×3×1, 2 classes");
        assertThat(ArrayDatasets.regression(new float[6], 3, new float[2]))
                .hasToString("2 samples, 3 features, regression");
    }

    @Test
    void theFirstDifferenceIsNamedOtherwiseNothing() {
        assertThat(flat(4, 3).incompatibilityWith(flat(4, 3))).isNull();
        assertThat(flat(4, 3).incompatibilityWith(flat(5, 3)))
                .isEqualTo("flat features (5 features) instead of flat features (4 features)");
        assertThat(flat(6, 2).incompatibilityWith(images(2)))
                .isEqualTo("images of 2×3×1 instead of flat features (6 features)");
        assertThat(flat(4, 3).incompatibilityWith(flat(4, 5))).isEqualTo("5 classes instead of 3");
        assertThat(flat(3, 3).incompatibilityWith(ArrayDatasets.regression(new float[6], 3, new float[2])))
                .isEqualTo("regression labels instead of classification");
    }
}
