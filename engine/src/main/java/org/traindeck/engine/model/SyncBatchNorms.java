package org.traindeck.engine.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.model.kernels.conv.SyncBatchNorm;
import org.traindeck.engine.model.kernels.conv.SyncBatchNormLayer;

/**
 * Which BatchNorm nodes are synchronized across devices: a {@code batchNorm} node's own {@code "sync"} when it says
 * one, otherwise the run's {@code parallel.syncBatchNorm} (which alone decides for the classic and zoo models, whose
 * BatchNorm layers have no node options). Those nodes become {@link SyncBatchNorm}, the same layer configuration.
 */
public final class SyncBatchNorms {

    /** A batchNorm node's option. */
    public static final String SYNC = "sync";

    private SyncBatchNorms() {}

    /** Makes the chosen BatchNorm layers of {@code conf} synchronous, in place; returns their names. */
    public static List<String> apply(ComputationGraphConfiguration conf, ModelConfig model, boolean runLevel) {
        Map<String, Boolean> own = nodeChoices(model);
        List<String> synced = new ArrayList<>();
        for (Map.Entry<String, GraphVertex> e : conf.getVertices().entrySet()) {
            if (e.getValue() instanceof LayerVertex v
                    && v.getLayerConf().getLayer() instanceof BatchNormalization bn
                    && own.getOrDefault(e.getKey(), runLevel)) {
                if (bn instanceof SyncBatchNorm) {
                    synced.add(e.getKey());
                } else if (SyncBatchNorm.convertible(bn)) {
                    v.getLayerConf().setLayer(SyncBatchNorm.of(bn));
                    synced.add(e.getKey());
                }
            }
        }
        return synced;
    }

    /** Whether any BatchNorm of the model would be synchronized (the node options, then the run's switch). */
    public static boolean requested(ModelConfig model, boolean runLevel) {
        return runLevel || nodeChoices(model).containsValue(true);
    }

    /** The synchronized BatchNorm layers of a built network, by name. */
    public static List<String> in(ComputationGraph net) {
        List<String> out = new ArrayList<>();
        for (Layer layer : net.getLayers()) {
            if (layer instanceof SyncBatchNormLayer) {
                out.add(layer.getConfig().getLayerName());
            }
        }
        return out;
    }

    private static Map<String, Boolean> nodeChoices(ModelConfig model) {
        Map<String, Boolean> own = new HashMap<>();
        ModelConfig.Graph graph = ModelCompiler.expanded(model);
        if (graph != null) {
            for (LayerSpec s : graph.layers()) {
                if (s.options().get(SYNC) instanceof Boolean b) {
                    own.put(s.name(), b);
                }
            }
        }
        return own;
    }
}
