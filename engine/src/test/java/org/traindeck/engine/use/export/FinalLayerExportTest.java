package org.traindeck.engine.use.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

/**
 * unpatch3d with a condition exported as DiT's FinalLayer (adaLN_modulation.1, linear): the peer module of
 * docs/export.md gives TrainDeck's outputs (within 1e-4) from both file formats, and the exported files start a fresh
 * TrainDeck model that gives the same outputs ("init").
 */
class FinalLayerExportTest extends VolumeExportCase {

    private static final String LAYERS = """
            {"name": "tokens", "type": "patches3d", "size": 2, "units": 8},
            {"name": "pooled", "type": "globalPool", "mode": "avg"},
            {"name": "cond", "type": "dense", "units": 6, "activation": "relu"},
            {"name": "volume", "type": "unpatch3d", "inputs": "tokens", "size": 2, "channels": 3, "grid": [2, 1, 3],
             "condition": "cond"}""";

    @Override
    String layers() {
        return LAYERS;
    }

    @Override
    String script() {
        return "final_layer.py";
    }

    @Override
    void afterTraining(ComputationGraph net) {
        // away from the final layer's zero start, so that every shift and scale counts
        Nd4j.getRandom().setSeed(5);
        net.params().addi(Nd4j.randn(DataType.FLOAT, net.params().shape()).muli(0.2));
    }

    @Test
    void tensorsAreNamedAsThePyTorchModuleHoldsThem() {
        ModelTensors tensors = ModelTensors.of(trained(), NamingTable.standard(), null);
        Map<String, long[]> shapes = new LinkedHashMap<>();
        for (NamedTensor t : tensors.tensors()) {
            shapes.put(t.name(), t.shape());
        }
        assertThat(shapes.get("volume.adaLN_modulation.1.weight")).containsExactly(16, 6);
        assertThat(shapes.get("volume.adaLN_modulation.1.bias")).containsExactly(16);
        assertThat(shapes.get("volume.linear.weight")).containsExactly(24, 8);
        assertThat(shapes.get("volume.linear.bias")).containsExactly(24);
        assertThat(shapes.keySet()).noneMatch(n -> n.startsWith("volume.norm_final"));
    }
}
