package org.traindeck.engine.model;

import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.RNNFormat;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Cnn3DLossLayer;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.weights.WeightInit;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.NumpyInputs;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.model.graph.Extents;
import org.traindeck.engine.model.graph.ShapeError;
import org.traindeck.engine.model.graph.Shapes;
import org.traindeck.engine.model.kernels.conv.Conv3DKernel;
import org.traindeck.engine.model.kernels.conv.SegmentationSoftmaxHead;
import org.traindeck.engine.model.kernels.conv.VolumeMseHead;
import org.traindeck.engine.model.kernels.dense.SoftmaxOutputHead;
import org.traindeck.engine.model.kernels.dense.SoftmaxSequenceHead;

/**
 * The head a task puts after the graph's last node: what the output is (classes, values, a class per pixel or voxel,
 * the input again, the next token at every step) and its loss. Per-position outputs get a 1×1 projection to the
 * task's outputs, so the graph's last node can have any number of channels.
 */
public final class Heads {

    public static final String INPUT = NumpyInputs.SINGLE;
    public static final String PROJECTION = "head";
    public static final String OUTPUT = "output";

    private Heads() {}

    public static void add(
            ComputationGraphConfiguration.GraphBuilder g,
            String last,
            InputType out,
            ModelConfig.Head head,
            ModelInput input) {
        add(g, last, out, head, input, false);
    }

    /**
     * @param ownKernel whether a softmax head runs on TrainDeck's kernel ({@link SoftmaxOutputHead}, {@link
     *     SoftmaxSequenceHead}), an image's per-pixel softmax on {@link SegmentationSoftmaxHead}, and a volume's 1×1×1
     *     projection on the conv3d kernel ({@link Conv3DKernel}) and its MSE on {@link VolumeMseHead}
     */
    public static void add(
            ComputationGraphConfiguration.GraphBuilder g,
            String last,
            InputType out,
            ModelConfig.Head head,
            ModelInput input,
            boolean ownKernel) {
        Task task = input.task();
        LossFunction loss = loss(head, task);
        Activation act = activation(head, task);
        int n = input.outputs();
        switch (task) {
            case REGRESSION -> {
                if (input.perStep()) {
                    g.addLayer(
                            OUTPUT,
                            perStep(out, input, loss, act, "a per-step regression head predicts its values"),
                            last);
                } else {
                    addPerSample(g, last, out, task, loss, act, n, ownKernel);
                }
            }
            case CLASSIFICATION -> addPerSample(g, last, out, task, loss, act, n, ownKernel);
            case SEQUENCE -> {
                RnnOutputLayer layer = perStep(out, input, loss, act, "a sequence head predicts a token");
                g.addLayer(
                        OUTPUT,
                        ownKernel && SoftmaxSequenceHead.computes(layer) ? new SoftmaxSequenceHead(layer) : layer,
                        last);
            }
            case SEGMENTATION, RECONSTRUCTION, DIFFUSION -> perPosition(g, last, out, input, loss, act, ownKernel);
        }
    }

    private static void addPerSample(
            ComputationGraphConfiguration.GraphBuilder g,
            String last,
            InputType out,
            Task task,
            LossFunction loss,
            Activation act,
            int n,
            boolean ownKernel) {
        if (out.getType() == InputType.Type.RNN) {
            throw new ShapeError("a " + task.json + " head takes a vector per sample but gets " + Shapes.describe(out)
                    + ": end with \"globalPool\" or \"firstToken\"");
        }
        OutputLayer layer = new OutputLayer.Builder(loss)
                .activation(act)
                .nOut(n)
                .weightInit(WeightInit.XAVIER)
                .build();
        g.addLayer(OUTPUT, ownKernel && SoftmaxOutputHead.computes(layer) ? new SoftmaxOutputHead(layer) : layer, last);
    }

    /** A prediction at every step of the data's sequences; {@code what} says which head predicts what, for messages. */
    private static RnnOutputLayer perStep(
            InputType out, ModelInput input, LossFunction loss, Activation act, String what) {
        if (out.getType() != InputType.Type.RNN) {
            throw new ShapeError(what + " at every step, so it takes a sequence, but gets " + Shapes.describe(out));
        }
        long steps = input.steps();
        long outSteps = ((InputType.InputTypeRecurrent) out).getTimeSeriesLength();
        if (steps > 0 && outSteps > 0 && steps != outSteps) {
            throw new ShapeError(what + " at each of the data's " + steps
                    + " steps, but gets " + Shapes.describe(out)
                    + ": keep the sequence's length (no pooling or striding along the steps)");
        }
        return new RnnOutputLayer.Builder(loss)
                .activation(act)
                .nOut(input.outputs())
                .dataFormat(RNNFormat.NCW)
                .weightInit(WeightInit.XAVIER)
                .build();
    }

    private static void perPosition(
            ComputationGraphConfiguration.GraphBuilder g,
            String last,
            InputType out,
            ModelInput input,
            LossFunction loss,
            Activation act,
            boolean ownKernel) {
        InputType in = input.input();
        String what = switch (input.task()) {
            case SEGMENTATION -> "a class for every pixel";
            case DIFFUSION -> "the denoising target of the sample (\"noisy\")";
            default -> "the input again";
        };
        if (in.getType() == InputType.Type.FF && input.task() != Task.SEGMENTATION) {
            if (out.getType() == InputType.Type.RNN) {
                throw new ShapeError(
                        "a " + input.task().json + " head takes a vector per sample but gets " + Shapes.describe(out));
            }
            g.addLayer(
                    OUTPUT,
                    new OutputLayer.Builder(loss)
                            .activation(act)
                            .nOut(input.outputs())
                            .build(),
                    last);
            return;
        }
        if (out.getType() != in.getType() || !Extents.sameExtent(in, out)) {
            throw new ShapeError("the head outputs " + what + ", so the last layer must keep the input's size ("
                    + Shapes.describe(in) + " has " + Extents.extentText(in) + "), but it gives " + Shapes.describe(out)
                    + ": up-sample back (upsample/deconv layers) to the input's size");
        }
        projectedHead(g, last, out.getType() == InputType.Type.CNN, input.outputs(), loss, act, ownKernel);
    }

    /** A 1x1 (or 1x1x1) convolution to the outputs per pixel (or voxel), then the loss per pixel (or voxel). */
    private static void projectedHead(
            ComputationGraphConfiguration.GraphBuilder g,
            String last,
            boolean image,
            int outputs,
            LossFunction loss,
            Activation act,
            boolean ownKernel) {
        if (image) {
            g.addLayer(
                    PROJECTION,
                    new ConvolutionLayer.Builder(1, 1)
                            .nOut(outputs)
                            .convolutionMode(ConvolutionMode.Same)
                            .activation(Activation.IDENTITY)
                            .weightInit(WeightInit.XAVIER)
                            .build(),
                    last);
            CnnLossLayer head = new CnnLossLayer.Builder(loss).activation(act).build();
            g.addLayer(OUTPUT, SegmentationSoftmaxHead.where(ownKernel, head), PROJECTION);
        } else {
            Convolution3D projection = new Convolution3D.Builder(1, 1, 1)
                    .nOut(outputs)
                    .convolutionMode(ConvolutionMode.Same)
                    .dataFormat(Convolution3D.DataFormat.NCDHW)
                    .activation(Activation.IDENTITY)
                    .weightInit(WeightInit.XAVIER)
                    .build();
            // DL4J's conv3d backward computes its forward pass again: a tenth of the 3D autoencoder's step at 64³
            g.addLayer(PROJECTION, Conv3DKernel.where(ownKernel, projection), last);
            Cnn3DLossLayer head = new Cnn3DLossLayer.Builder(Convolution3D.DataFormat.NCDHW)
                    .lossFunction(loss)
                    .activation(act)
                    .build();
            g.addLayer(OUTPUT, VolumeMseHead.where(ownKernel, head), PROJECTION);
        }
    }

    public static LossFunction loss(ModelConfig.Head head, Task task) {
        String chosen = head == null ? "auto" : head.loss();
        return switch (chosen) {
            case "mse" -> LossFunction.MSE;
            case "l1" -> LossFunction.L1;
            case "crossEntropy" -> LossFunction.MCXENT;
            default -> valued(task) ? LossFunction.MSE : LossFunction.MCXENT;
        };
    }

    private static boolean valued(Task task) {
        return task == Task.REGRESSION || task == Task.RECONSTRUCTION || task == Task.DIFFUSION;
    }

    public static Activation activation(ModelConfig.Head head, Task task) {
        String chosen = head == null ? "auto" : head.activation();
        return switch (chosen) {
            case "identity" -> Activation.IDENTITY;
            case "sigmoid" -> Activation.SIGMOID;
            case "tanh" -> Activation.TANH;
            case "softmax" -> Activation.SOFTMAX;
            default -> valued(task) ? Activation.IDENTITY : Activation.SOFTMAX;
        };
    }
}
