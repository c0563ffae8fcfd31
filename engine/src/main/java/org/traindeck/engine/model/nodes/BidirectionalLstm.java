package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.recurrent.Bidirectional;
import org.deeplearning4j.nn.conf.layers.recurrent.LastTimeStep;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;

/**
 * bidirectional: an LSTM read forwards and one read backwards, joined by {@code mode} ("concat" doubles the features).
 * With {@code returnSequences: false} the output is the joined output at the last step, as DL4J's LastTimeStep gives
 * it: there the backward LSTM has read only that one step (Keras would take its state after the whole sequence). The
 * Keras form, Bidirectional(LastTimeStep(LSTM)), builds in M2.1 but its backprop fails on the rank-2 output ("cannot
 * get size of dimension 2 for rank 2 NDArray"), and the global defaults never reach a layer wrapped twice.
 */
public final class BidirectionalLstm implements LayerKind {

    @Override
    public String type() {
        return "bidirectional";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        Recurrent.requireFeatures(inputs.get(0));
        Bidirectional.Mode mode = switch (o.string("mode")) {
            case "add" -> Bidirectional.Mode.ADD;
            case "mul" -> Bidirectional.Mode.MUL;
            case "average" -> Bidirectional.Mode.AVERAGE;
            default -> Bidirectional.Mode.CONCAT;
        };
        Layer both = new KeepsLength(mode, Lstm.cell(o.integer("units")));
        return Built.layer(o.bool("returnSequences") ? both : new LastTimeStep(both));
    }

    /**
     * DL4J's Bidirectional with the output type it should report: in "concat" mode its own drops the sequence's
     * length (M2.1), so a flatten after it, and the summary, would not know it.
     */
    public static final class KeepsLength extends Bidirectional {

        /** For DL4J's JSON. */
        public KeepsLength() {}

        public KeepsLength(Mode mode, Layer layer) {
            super(mode, layer);
        }

        @Override
        public InputType getOutputType(int layerIndex, InputType inputType) {
            InputType out = super.getOutputType(layerIndex, inputType);
            if (out instanceof InputType.InputTypeRecurrent r && inputType instanceof InputType.InputTypeRecurrent in) {
                return InputType.recurrent(r.getSize(), in.getTimeSeriesLength(), r.getFormat());
            }
            return out;
        }
    }
}
