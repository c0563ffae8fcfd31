package org.traindeck.engine.model.kernels.embedding;

import java.util.Collection;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.kernels.LayerSettings;

/**
 * DL4J's {@link EmbeddingSequenceLayer} (a learned vector per token id, token ids [mb, T] in, [mb, units, T] out)
 * computed by TrainDeck's CPU kernel ({@link TokenEmbeddingLayer}). The same configuration, copied from the layer it
 * stands for (parameter W [vocabulary, units] and its layout, updater and regularisation), so a network or checkpoint of
 * either loads into the other.
 */
public class TokenEmbedding extends EmbeddingSequenceLayer {

    /** For JSON. */
    public TokenEmbedding() {}

    /** The kernel for {@code layer}, which must have the identity activation and NCW output. */
    public TokenEmbedding(EmbeddingSequenceLayer layer) {
        if (!computes(layer)) {
            throw new IllegalArgumentException(
                    "TokenEmbedding computes identity embeddings into [minibatch, units, time], not " + layer);
        }
        LayerSettings.copy(layer, this);
        setInputLength(layer.getInputLength());
        setHasBias(layer.isHasBias());
        setInferInputLength(layer.isInferInputLength());
        setOutputFormat(layer.getOutputFormat());
    }

    /** Whether the kernel computes {@code layer}. */
    public static boolean computes(EmbeddingSequenceLayer layer) {
        return (layer.getActivationFn() == null || layer.getActivationFn() instanceof ActivationIdentity)
                && layer.getOutputFormat() == RNNFormat.NCW;
    }

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> listeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        if (networkDataType != DataType.FLOAT) {
            // the kernel computes in float32; float16 training gets DL4J's layer, with the same parameters
            return super.instantiate(conf, listeners, layerIndex, layerParamsView, initializeParams, networkDataType);
        }
        return KernelInstances.wire(
                new TokenEmbeddingLayer(conf, networkDataType),
                conf,
                listeners,
                layerIndex,
                layerParamsView,
                initializeParams,
                initializer());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenEmbedding && super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    @Override
    public String toString() {
        return "TokenEmbedding(" + super.toString() + ")";
    }
}
