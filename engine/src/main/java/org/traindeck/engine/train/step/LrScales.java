package org.traindeck.engine.train.step;

import java.util.LinkedHashMap;
import java.util.Map;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;

/** The nodes whose learning rate is the stage's times their own {@code lrScale}, by node (DL4J layer) name. */
public final class LrScales {

    static final String OPTION = "lrScale";

    private LrScales() {}

    public static Map<String, Double> of(ModelConfig model) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (model instanceof ModelConfig.Graph graph) {
            for (LayerSpec spec : graph.layers()) {
                if (spec.options().get(OPTION) instanceof Number scale && scale.doubleValue() != 1) {
                    out.put(spec.name(), scale.doubleValue());
                }
            }
        }
        return out;
    }
}
