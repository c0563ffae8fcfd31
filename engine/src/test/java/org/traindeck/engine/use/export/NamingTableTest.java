package org.traindeck.engine.use.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.layers.LSTM;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

/** A layer with parameters and no entry is refused by name, never written in a layout nobody checked; one entry adds it. */
class NamingTableTest {

    @Test
    void aLayerTypeWithoutAnEntryIsRefusedByNodeAndType() {
        LSTM lstm = new LSTM.Builder().nIn(2).nOut(3).build();
        var params = Map.of("W", Nd4j.zeros(DataType.FLOAT, 2, 12));

        assertThatThrownBy(() -> NamingTable.standard().tensors("encoder", lstm, params))
                .isInstanceOf(ExportException.class)
                .hasMessageContaining("node 'encoder' is a LSTM with parameters [W]")
                .hasMessageContaining("DenseLayer");
        assertThat(NamingTable.standard()
                        .with(LSTM.class, (node, layer, p) -> List.of(Layouts.same(node + ".weight_ih", p.get("W"))))
                        .tensors("encoder", lstm, params))
                .extracting(NamedTensor::name)
                .containsExactly("encoder.weight_ih");
    }

    @Test
    void aLayerWithoutParametersNeedsNoEntry() {
        assertThat(NamingTable.standard()
                        .tensors("lstm", new LSTM.Builder().nIn(2).nOut(3).build(), Map.of()))
                .isEmpty();
    }
}
