package org.traindeck.engine.model;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.ActivationLayer;
import org.deeplearning4j.nn.conf.layers.BatchNormalization;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.FeedForwardLayer;
import org.deeplearning4j.nn.conf.layers.GlobalPoolingLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.PoolingType;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.model.kernels.conv.BatchNormKernel;
import org.traindeck.engine.model.kernels.conv.ConvKernel;
import org.traindeck.engine.model.kernels.conv.MaxPoolKernel;
import org.traindeck.engine.model.kernels.conv.ReluKernel;
import org.traindeck.engine.model.kernels.dense.DenseKernel;
import org.traindeck.engine.model.kernels.dense.SoftmaxOutputHead;

/**
 * The shorthands TrainDeck started with, built as before (the same layer names, so their checkpoints keep loading):
 * mlp, lenet and resnet. They train classification and regression only.
 */
final class ClassicModels {

    private static final String INPUT = Heads.INPUT;
    private static final String OUTPUT = Heads.OUTPUT;

    private ClassicModels() {}

    static ComputationGraphConfiguration mlp(ModelConfig.Mlp mlp, ModelInput shape, long seed, KernelUse kernels) {
        Activation act = activation(mlp.activation());
        ComputationGraphConfiguration.GraphBuilder g =
                ModelBase.builder(seed, init(act)).graphBuilder().addInputs(INPUT);
        g.setInputTypes(InputType.feedForward(shape.input().arrayElementsPerExample()));
        boolean kernel = kernels.kernelFor(mlp.kernel()) && DenseKernel.supports(act);
        String last = INPUT;
        for (int i = 0; i < mlp.hidden().size(); i++) {
            FeedForwardLayer.Builder<?> dense = kernel ? new DenseKernel.Builder() : new DenseLayer.Builder();
            dense.nOut(mlp.hidden().get(i)).activation(act);
            if (i > 0 && mlp.dropout() > 0) {
                dense.dropOut(1 - mlp.dropout()); // DL4J takes the probability of keeping a unit
            }
            g.addLayer("dense" + i, dense.build(), last);
            last = "dense" + i;
        }
        last = addOutput(g, shape, last, mlp.hidden().isEmpty() ? 0 : mlp.dropout(), kernels.kernelFor(mlp.kernel()));
        return g.setOutputs(last).build();
    }

    static ComputationGraphConfiguration lenet(
            ModelConfig.LeNet lenet, ModelInput shape, long seed, KernelUse kernels) {
        Activation act = activation(lenet.activation());
        ComputationGraphConfiguration.GraphBuilder g =
                ModelBase.builder(seed, init(act)).graphBuilder().addInputs(INPUT);
        g.setInputTypes(shape.input());
        String last = INPUT;
        for (int i = 0; i < lenet.channels().size(); i++) {
            g.addLayer(
                    "conv" + i,
                    ConvKernel.where(
                            kernels.kernelFor(null),
                            new ConvolutionLayer.Builder(lenet.kernelSize(), lenet.kernelSize())
                                    .nOut(lenet.channels().get(i))
                                    .stride(1, 1)
                                    .convolutionMode(ConvolutionMode.Same)
                                    .activation(lenet.batchNorm() ? Activation.IDENTITY : act)
                                    .build()),
                    last);
            last = "conv" + i;
            if (lenet.batchNorm()) {
                last = batchNorm(g, "bn" + i, last, act, kernels.kernelFor(null));
            }
            SubsamplingLayer pool = new SubsamplingLayer.Builder(PoolingType.MAX)
                    .kernelSize(2, 2)
                    .stride(2, 2)
                    .build();
            g.addLayer("pool" + i, kernels.kernelFor(null) ? MaxPoolKernel.of(pool) : pool, last);
            last = "pool" + i;
        }
        boolean kernel = kernels.kernelFor(null);
        FeedForwardLayer.Builder<?> dense =
                kernel && DenseKernel.supports(act) ? new DenseKernel.Builder() : new DenseLayer.Builder();
        g.addLayer("dense", dense.nOut(lenet.dense()).activation(act).build(), last);
        last = addOutput(g, shape, "dense", lenet.dropout(), kernel);
        return g.setOutputs(last).build();
    }

    /**
     * A batch norm, then the activation as a layer of its own: DL4J 1.0.0-M2.1's BatchNormalization takes an activation
     * and never applies it. Returns the last node's name.
     */
    private static String batchNorm(
            ComputationGraphConfiguration.GraphBuilder g, String name, String in, Activation act, boolean ownKernel) {
        g.addLayer(name, batchNorm(ownKernel), in);
        if (act == Activation.IDENTITY) {
            return name;
        }
        g.addLayer(name + "_act", activation(act, ownKernel), name);
        return name + "_act";
    }

    /** DL4J's BatchNormalization, on TrainDeck's fused kernel ({@link BatchNormKernel}) when {@code ownKernel}. */
    private static BatchNormalization batchNorm(boolean ownKernel) {
        BatchNormalization bn =
                new BatchNormalization.Builder().activation(Activation.IDENTITY).build();
        return ownKernel ? BatchNormKernel.of(bn) : bn;
    }

    /** An activation layer, a plain relu on TrainDeck's kernel ({@link ReluKernel}) when {@code ownKernel}. */
    private static ActivationLayer activation(Activation act, boolean ownKernel) {
        ActivationLayer layer = new ActivationLayer.Builder().activation(act).build();
        return ownKernel && ReluKernel.convertible(layer) ? ReluKernel.of(layer) : layer;
    }

    static ComputationGraphConfiguration resnet(
            ModelConfig.ResNet resnet, ModelInput shape, long seed, KernelUse kernels) {
        boolean own = kernels.kernelFor(null);
        Activation act = activation(resnet.activation());
        ComputationGraphConfiguration.GraphBuilder g =
                ModelBase.builder(seed, init(act)).graphBuilder().addInputs(INPUT);
        g.setInputTypes(shape.input());
        int ch = resnet.channels();
        g.addLayer("stem", conv3(ch, own), INPUT);
        String last = batchNorm(g, "stem_bn", "stem", act, own);
        for (int b = 0; b < resnet.blocks(); b++) {
            String p = "block" + b + "_";
            g.addLayer(p + "conv1", conv3(ch, own), last);
            g.addLayer(p + "conv2", conv3(ch, own), batchNorm(g, p + "bn1", p + "conv1", act, own));
            g.addLayer(p + "bn2", batchNorm(own), p + "conv2");
            g.addVertex(p + "add", new ElementWiseVertex(ElementWiseVertex.Op.Add), p + "bn2", last);
            g.addLayer(p + "out", activation(act, own), p + "add");
            last = p + "out";
        }
        g.addLayer("pool", new GlobalPoolingLayer.Builder(PoolingType.AVG).build(), last);
        last = addOutput(g, shape, "pool", 0, false);
        return g.setOutputs(last).build();
    }

    private static ConvolutionLayer conv3(int channels, boolean own) {
        return ConvKernel.where(
                own,
                new ConvolutionLayer.Builder(3, 3)
                        .nOut(channels)
                        .stride(1, 1)
                        .convolutionMode(ConvolutionMode.Same)
                        .activation(Activation.IDENTITY)
                        .build());
    }

    /** @param ownKernel whether a softmax head runs on TrainDeck's kernel ({@link SoftmaxOutputHead}) */
    private static String addOutput(
            ComputationGraphConfiguration.GraphBuilder g,
            ModelInput shape,
            String from,
            double dropout,
            boolean ownKernel) {
        OutputLayer.Builder out = shape.task() == Task.CLASSIFICATION
                ? new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                        .activation(Activation.SOFTMAX)
                        .nOut(shape.outputs())
                : new OutputLayer.Builder(LossFunctions.LossFunction.MSE)
                        .activation(Activation.IDENTITY)
                        .nOut(shape.outputs());
        if (dropout > 0) {
            out.dropOut(1 - dropout);
        }
        OutputLayer layer = out.build();
        g.addLayer(OUTPUT, ownKernel && SoftmaxOutputHead.computes(layer) ? new SoftmaxOutputHead(layer) : layer, from);
        return OUTPUT;
    }

    private static WeightInit init(Activation act) {
        return act == Activation.TANH || act == Activation.SIGMOID ? WeightInit.XAVIER : WeightInit.RELU;
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
