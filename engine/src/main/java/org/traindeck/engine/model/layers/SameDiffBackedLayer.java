package org.traindeck.engine.model.layers;

import java.util.Collection;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.samediff.SameDiffLayer;
import org.deeplearning4j.nn.weights.IWeightInit;
import org.deeplearning4j.nn.weights.WeightInitXavier;
import org.deeplearning4j.optimize.api.TrainingListener;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * What TrainDeck's SameDiff layers share: they run on {@link SameDiffLayerRuntime} (true gradients where DL4J M2.1
 * doubles them, no "Added differentiated op" lines on stdout, a working setParam), they read sizes that vary
 * (minibatch, sequence length) from the data, never from the graph built for the first batch, and their
 * parameters are drawn from ND4J's global RNG, which {@code ComputationGraph.init()} seeds with the network's seed.
 *
 * <p>Subclasses hash only their class, name and options: DL4J's {@code SDLayerParams.hashCode} hashes its shape
 * arrays by identity, so the inherited hash differs between a configuration and its JSON copy although they are
 * equal.
 */
public abstract class SameDiffBackedLayer extends SameDiffLayer {

    protected SameDiffBackedLayer() {}

    @Override
    public Layer instantiate(
            NeuralNetConfiguration conf,
            Collection<TrainingListener> trainingListeners,
            int layerIndex,
            INDArray layerParamsView,
            boolean initializeParams,
            DataType networkDataType) {
        SameDiffLayerRuntime layer = runtime(conf, networkDataType);
        layer.setIndex(layerIndex);
        layer.setParamsViewArray(layerParamsView);
        Map<String, INDArray> paramTable = initializer().init(conf, layerParamsView, initializeParams);
        layer.setParamTable(paramTable);
        layer.setConf(conf);
        return layer;
    }

    /** The layer at run time: SameDiff's graph, or a subclass that computes both passes itself. */
    SameDiffLayerRuntime runtime(NeuralNetConfiguration conf, DataType networkDataType) {
        return new SameDiffLayerRuntime(conf, networkDataType);
    }

    /** The layer's weight init if one was set, else Xavier (DL4J's default). */
    protected void initWeights(INDArray weights, long fanIn, long fanOut) {
        IWeightInit init = weightInit == null ? new WeightInitXavier() : weightInit.getWeightInitFunction();
        init.init(fanIn, fanOut, weights.shape(), 'c', weights);
    }

    protected static void initNormal(INDArray array, double std) {
        array.assign(Nd4j.randn(array.dataType(), array.shape()).muli(std));
    }

    /** Parameter shapes depend on the input, so a cached shape table must not outlive a change of input. */
    protected void forgetParameterShapes() {
        setLayerParams(null);
    }

    protected String describe(InputType inputType) {
        return inputType == null ? "null" : inputType.toString();
    }

    protected IllegalArgumentException refuse(String layerName, String message) {
        String name =
                layerName == null ? getClass().getSimpleName() : getClass().getSimpleName() + " \"" + layerName + "\"";
        return new IllegalArgumentException(name + ": " + message);
    }
}
