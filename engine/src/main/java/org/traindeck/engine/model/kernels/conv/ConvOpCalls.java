package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.params.ConvolutionParamInitializer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.CustomOp;
import org.nd4j.linalg.api.ops.OpContext;
import org.nd4j.linalg.factory.Nd4j;

/** What the conv2d and conv3d kernel layers do alike around libnd4j's ops (the same argument order, the same keys). */
final class ConvOpCalls {

    private ConvOpCalls() {}

    /**
     * The op's backward pass ({@code conv2d_bp} or {@code conv3dnew_bp}) on a reused context: inputs x, W, the bias
     * (when there is one) and dz; outputs dx, dW and the bias gradient.
     */
    static void backward(
            OpContext ctx,
            CustomOp op,
            INDArray x,
            INDArray w,
            INDArray b,
            INDArray dz,
            INDArray dx,
            INDArray dW,
            INDArray db) {
        ctx.purge();
        ctx.setInputArray(0, x);
        ctx.setInputArray(1, w);
        int in = 2;
        if (b != null) {
            ctx.setInputArray(in++, b);
        }
        ctx.setInputArray(in, dz);
        ctx.setOutputArray(0, dx);
        ctx.setOutputArray(1, dW);
        if (db != null) {
            ctx.setOutputArray(2, db);
        }
        Nd4j.exec(op, ctx);
    }

    /** The layer's gradient: dW ('c' order), and db where the layer has a bias (null otherwise). */
    static Gradient gradient(INDArray dW, INDArray db) {
        Gradient gradient = new DefaultGradient();
        if (db != null) {
            gradient.setGradientFor(ConvolutionParamInitializer.BIAS_KEY, db);
        }
        gradient.setGradientFor(ConvolutionParamInitializer.WEIGHT_KEY, dW, 'c');
        return gradient;
    }
}
