package org.traindeck.engine.train.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.config.LayerHealthConfig;

/** Each condition warns after {@code patience} logged steps in a row, once per layer and condition, naming the layer. */
class LayerWarningsTest {

    private static final LayerHealthConfig CONFIG = new LayerHealthConfig(10, 0, 1e-5, 1e-1, 0.9, 1000, 3);

    private static LayerFigures layer(String node, double grad, double ratio, double zeros, boolean relu) {
        return new LayerFigures(node, 1, grad, ratio, 0, 1, zeros, relu);
    }

    private static List<String> feed(LayerWarnings w, int steps, List<LayerFigures> figures) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            out.addAll(w.check(figures));
        }
        return out;
    }

    @Test
    void aHealthyModelSaysNothing() {
        LayerWarnings w = new LayerWarnings(CONFIG);
        assertThat(feed(
                        w,
                        20,
                        List.of(
                                layer("a", 1, 1e-3, 0.5, true),
                                layer("b", 2, 2e-3, 0.4, true),
                                layer("out", 3, 1e-3, 0, false))))
                .isEmpty();
    }

    @Test
    void aConditionMustHoldForPatienceStepsInARowAndIsSaidOnce() {
        LayerWarnings w = new LayerWarnings(CONFIG);
        List<LayerFigures> fast = List.of(layer("a", 1, 0.5, 0.5, true), layer("out", 1, 1e-3, 0, false));
        List<LayerFigures> calm = List.of(layer("a", 1, 1e-3, 0.5, true), layer("out", 1, 1e-3, 0, false));
        assertThat(feed(w, 2, fast)).isEmpty();
        assertThat(feed(w, 1, calm)).isEmpty();
        assertThat(feed(w, 2, fast))
                .as("the streak starts again after a calm step")
                .isEmpty();
        List<String> said = feed(w, 10, fast);
        assertThat(said).hasSize(1);
        assertThat(said.get(0)).startsWith("layer 'a' learns too fast").contains("Lower the learning rate");
    }

    @Test
    void deadUnitsAreReluLayersOnly() {
        LayerWarnings w = new LayerWarnings(CONFIG);
        List<String> said = feed(w, 3, List.of(layer("r", 1, 1e-3, 0.97, true), layer("t", 1, 1e-3, 0.97, false)));
        assertThat(said).hasSize(1);
        assertThat(said.get(0)).startsWith("layer 'r' is dying: 97%");
    }

    @Test
    void gradientsThatVanishOrExplodeAlongTheDepthNameTheFirstAndLastLayers() {
        LayerWarnings vanishing = new LayerWarnings(CONFIG);
        List<String> v = feed(
                vanishing,
                3,
                List.of(
                        layer("first", 1e-6, 1e-3, 0, false),
                        layer("mid", 1e-3, 1e-3, 0, false),
                        layer("last", 1, 1e-3, 0, false)));
        assertThat(v).hasSize(1);
        assertThat(v.get(0))
                .startsWith("gradients vanish along the depth: the first layer 'first'")
                .contains("the last, layer 'last'");

        LayerWarnings exploding = new LayerWarnings(CONFIG);
        List<String> e =
                feed(exploding, 3, List.of(layer("first", 5e3, 1e-3, 0, false), layer("last", 1, 1e-3, 0, false)));
        assertThat(e).hasSize(1);
        assertThat(e.get(0)).startsWith("gradients explode along the depth");
    }

    @Test
    void aFigureNotTakenIsNoCondition() {
        LayerWarnings w = new LayerWarnings(CONFIG);
        assertThat(feed(
                        w,
                        5,
                        List.of(
                                layer("act", Double.NaN, Double.NaN, Double.NaN, true),
                                layer("out", 1, 1e-3, 0, false))))
                .isEmpty();
    }
}
