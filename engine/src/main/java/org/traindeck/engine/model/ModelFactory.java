package org.traindeck.engine.model;

import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.WorkspaceMode;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.Dataset;

/**
 * Builds TrainDeck's built-in architectures as DL4J computation graphs (one graph type for all, so the training
 * step has one code path). The updater set here is a placeholder: each stage installs its own.
 */
public final class ModelFactory {

    public static final String INPUT = "input";
    public static final String OUTPUT = "output";

    private ModelFactory() {
    }

    /** What the data looks like to the network. */
    public record Shape(int featureCount, Dataset.ImageShape image, int outputs, Task task) {
        public static Shape of(Dataset d) {
            return new Shape(d.featureCount(), d.imageShape(), d.outputCount(), d.task());
        }
    }

    /** Whether a model takes channels-first image batches (true) or flat feature rows (false). */
    public static boolean wantsImages(ModelConfig model) {
        return !(model instanceof ModelConfig.Mlp);
    }

    public static ComputationGraph build(ModelConfig model, Shape shape, long seed) {
        ComputationGraph graph = new ComputationGraph(configuration(model, shape, seed));
        graph.init();
        return graph;
    }

    public static ComputationGraphConfiguration configuration(ModelConfig model, Shape shape, long seed) {
        Activation act = activation(model.activation());
        NeuralNetConfiguration.Builder base = new NeuralNetConfiguration.Builder()
                .seed(seed)
                .dataType(DataType.FLOAT)
                .weightInit(act == Activation.TANH || act == Activation.SIGMOID ? WeightInit.XAVIER : WeightInit.RELU)
                .updater(new Adam(1e-3))
                .trainingWorkspaceMode(WorkspaceMode.ENABLED)
                .inferenceWorkspaceMode(WorkspaceMode.ENABLED)
                // backprop reuses the convolutions' forward results instead of computing them again: 1.6x on DL4J's own
                // path (oneDNN off, other platforms, ParallelWrapper's replicas), about even with oneDNN; same numbers
                .cacheMode(CacheMode.DEVICE);
        ComputationGraphConfiguration.GraphBuilder g = base.graphBuilder().addInputs(INPUT);
        String last;
        if (model instanceof ModelConfig.Mlp mlp) {
            g.setInputTypes(InputType.feedForward(shape.featureCount()));
            last = INPUT;
            for (int i = 0; i < mlp.hidden().size(); i++) {
                DenseLayer.Builder dense = new DenseLayer.Builder().nOut(mlp.hidden().get(i)).activation(act);
                if (i > 0 && mlp.dropout() > 0) {
                    dense.dropOut(1 - mlp.dropout()); // DL4J takes the probability of keeping a unit
                }
                g.addLayer("dense" + i, dense.build(), last);
                last = "dense" + i;
            }
            last = addOutput(g, shape, last, mlp.hidden().isEmpty() ? 0 : mlp.dropout());
        } else if (model instanceof ModelConfig.LeNet lenet) {
            Dataset.ImageShape img = shape.image();
            g.setInputTypes(InputType.convolutional(img.height(), img.width(), img.channels()));
            last = INPUT;
            for (int i = 0; i < lenet.channels().size(); i++) {
                g.addLayer("conv" + i, new ConvolutionLayer.Builder(lenet.kernelSize(), lenet.kernelSize())
                        .nOut(lenet.channels().get(i)).stride(1, 1).convolutionMode(ConvolutionMode.Same)
                        .activation(lenet.batchNorm() ? Activation.IDENTITY : act).build(), last);
                last = "conv" + i;
                if (lenet.batchNorm()) {
                    g.addLayer("bn" + i, new BatchNormalization.Builder().activation(act).build(), last);
                    last = "bn" + i;
                }
                g.addLayer("pool" + i, new SubsamplingLayer.Builder(PoolingType.MAX).kernelSize(2, 2).stride(2, 2)
                        .build(), last);
                last = "pool" + i;
            }
            DenseLayer.Builder dense = new DenseLayer.Builder().nOut(lenet.dense()).activation(act);
            g.addLayer("dense", dense.build(), last);
            last = addOutput(g, shape, "dense", lenet.dropout());
        } else {
            ModelConfig.ResNet resnet = (ModelConfig.ResNet) model;
            Dataset.ImageShape img = shape.image();
            g.setInputTypes(InputType.convolutional(img.height(), img.width(), img.channels()));
            int ch = resnet.channels();
            g.addLayer("stem", conv3(ch), INPUT);
            g.addLayer("stem_bn", new BatchNormalization.Builder().activation(act).build(), "stem");
            last = "stem_bn";
            for (int b = 0; b < resnet.blocks(); b++) {
                String p = "block" + b + "_";
                g.addLayer(p + "conv1", conv3(ch), last);
                g.addLayer(p + "bn1", new BatchNormalization.Builder().activation(act).build(), p + "conv1");
                g.addLayer(p + "conv2", conv3(ch), p + "bn1");
                g.addLayer(p + "bn2", new BatchNormalization.Builder().activation(Activation.IDENTITY).build(), p + "conv2");
                g.addVertex(p + "add", new ElementWiseVertex(ElementWiseVertex.Op.Add), p + "bn2", last);
                g.addLayer(p + "out", new ActivationLayer.Builder().activation(act).build(), p + "add");
                last = p + "out";
            }
            g.addLayer("pool", new GlobalPoolingLayer.Builder(PoolingType.AVG).build(), last);
            last = addOutput(g, shape, "pool", 0);
        }
        return g.setOutputs(last).build();
    }

    private static ConvolutionLayer conv3(int channels) {
        return new ConvolutionLayer.Builder(3, 3).nOut(channels).stride(1, 1).convolutionMode(ConvolutionMode.Same)
                .activation(Activation.IDENTITY).build();
    }

    private static String addOutput(ComputationGraphConfiguration.GraphBuilder g, Shape shape, String from, double dropout) {
        OutputLayer.Builder out = shape.task() == Task.CLASSIFICATION
                ? new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).activation(Activation.SOFTMAX).nOut(shape.outputs())
                : new OutputLayer.Builder(LossFunctions.LossFunction.MSE).activation(Activation.IDENTITY).nOut(1);
        if (dropout > 0) {
            out.dropOut(1 - dropout);
        }
        g.addLayer(OUTPUT, out.build(), from);
        return OUTPUT;
    }

    static Activation activation(ModelConfig.Activation a) {
        return switch (a) {
            case RELU -> Activation.RELU;
            case LEAKYRELU -> Activation.LEAKYRELU;
            case TANH -> Activation.TANH;
            case SIGMOID -> Activation.SIGMOID;
            case GELU -> Activation.GELU;
            case SWISH -> Activation.SWISH;
        };
    }
}
