package org.traindeck.engine.model.nodes;

import java.util.List;
import org.deeplearning4j.nn.conf.graph.PreprocessorVertex;
import org.deeplearning4j.nn.conf.graph.ReshapeVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.preprocessor.Cnn3DToFeedForwardPreProcessor;
import org.deeplearning4j.nn.conf.preprocessor.CnnToFeedForwardPreProcessor;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;
import org.traindeck.engine.model.graph.ShapeError;

/** An image, volume or sequence as one vector per sample. */
public final class Flatten implements LayerKind {

    @Override
    public String type() {
        return "flatten";
    }

    @Override
    public Built build(NodeOptions o, List<InputType> inputs) {
        InputType in = inputs.get(0);
        return switch (in.getType()) {
            case CNN -> {
                InputType.InputTypeConvolutional c = (InputType.InputTypeConvolutional) in;
                yield Built.vertex(new PreprocessorVertex(
                        new CnnToFeedForwardPreProcessor(c.getHeight(), c.getWidth(), c.getChannels())));
            }
            case CNN3D -> {
                InputType.InputTypeConvolutional3D c = (InputType.InputTypeConvolutional3D) in;
                // every volume here is channels first; DL4J's 3D pooling reports its output as NDHWC all the same
                yield Built.vertex(new PreprocessorVertex(new Cnn3DToFeedForwardPreProcessor(
                        c.getDepth(), c.getHeight(), c.getWidth(), c.getChannels(), true)));
            }
            case RNN -> {
                InputType.InputTypeRecurrent r = (InputType.InputTypeRecurrent) in;
                if (r.getTimeSeriesLength() <= 0) {
                    throw new ShapeError(
                            "cannot flatten a sequence of unknown length: use \"globalPool\" or \"firstToken\"");
                }
                yield Built.vertex(new ReshapeVertex(-1, Math.toIntExact(r.getSize() * r.getTimeSeriesLength())));
            }
            default ->
                throw new ShapeError(
                        "takes an image, volume or sequence, but its input is already a vector: remove it");
        };
    }
}
