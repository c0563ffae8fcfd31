package org.traindeck.engine.use.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * patches3d and unpatch3d exported under a PyTorch module's names (proj.weight, proj.bias, pos_embed; a Linear's weight
 * and bias): the peer module of docs/export.md gives TrainDeck's outputs (within 1e-4) from both file formats, and the
 * exported files start a fresh TrainDeck model that gives the same outputs ("init").
 */
class VolumePatchExportTest extends VolumeExportCase {

    private static final String LAYERS = """
            {"name": "tokens", "type": "patches3d", "size": 2, "units": 8},
            {"name": "block", "type": "transformerBlock", "heads": 2, "mlpRatio": 2},
            {"name": "volume", "type": "unpatch3d", "size": 2, "channels": 3, "grid": [2, 1, 3]}""";

    @Override
    String layers() {
        return LAYERS;
    }

    @Override
    String script() {
        return "volume_vit.py";
    }

    @Test
    void tensorsAreNamedAsThePyTorchModuleHoldsThem() {
        ModelTensors tensors = ModelTensors.of(trained(), NamingTable.standard(), null);
        Map<String, long[]> shapes = new LinkedHashMap<>();
        for (NamedTensor t : tensors.tensors()) {
            shapes.put(t.name(), t.shape());
        }
        assertThat(shapes.get("tokens.proj.weight")).containsExactly(8, 2, 2, 2, 2);
        assertThat(shapes.get("tokens.proj.bias")).containsExactly(8);
        assertThat(shapes.get("tokens.pos_embed")).containsExactly(1, 6, 8);
        assertThat(shapes.get("volume.weight")).containsExactly(24, 8);
        assertThat(shapes.get("volume.bias")).containsExactly(24);
    }
}
