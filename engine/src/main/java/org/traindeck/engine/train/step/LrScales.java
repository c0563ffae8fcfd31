package org.traindeck.engine.train.step;

import java.util.LinkedHashMap;
import java.util.Map;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.model.ModelCompiler;

/**
 * The nodes whose learning rate is the stage's times their own {@code lrScale}, by node (DL4J layer) name; a frozen
 * node ({@code "trainable": false}) has the scale 0, which {@link Optimizers#install} turns into no update at all.
 */
public final class LrScales {

    static final String OPTION = "lrScale";
    static final String TRAINABLE = "trainable";
    /** The scale of a frozen node. */
    public static final double FROZEN = 0;

    private LrScales() {}

    public static Map<String, Double> of(ModelConfig model) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (model instanceof ModelConfig.Graph graph) {
            for (LayerSpec spec : graph.layers()) {
                for (String layer : ModelCompiler.layerNames(spec)) {
                    if (Boolean.FALSE.equals(spec.options().get(TRAINABLE))) {
                        out.put(layer, FROZEN);
                    } else if (spec.options().get(OPTION) instanceof Number scale && scale.doubleValue() != 1) {
                        out.put(layer, scale.doubleValue());
                    }
                }
            }
        }
        return out;
    }
}
