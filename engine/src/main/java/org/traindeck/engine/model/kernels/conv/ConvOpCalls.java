package org.traindeck.engine.model.kernels.conv;

import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.params.ConvolutionParamInitializer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.CustomOp;
import org.nd4j.linalg.api.ops.OpContext;
import org.nd4j.linalg.api.ops.impl.layers.convolution.Conv2D;
import org.nd4j.linalg.api.ops.impl.layers.convolution.Conv2DDerivative;
import org.nd4j.linalg.api.ops.impl.layers.convolution.Conv3D;
import org.nd4j.linalg.api.ops.impl.layers.convolution.Conv3DDerivative;
import org.nd4j.linalg.api.ops.impl.layers.convolution.DeConv2D;
import org.nd4j.linalg.api.ops.impl.layers.convolution.DeConv2DDerivative;
import org.nd4j.linalg.api.ops.impl.layers.convolution.DeConv3D;
import org.nd4j.linalg.api.ops.impl.layers.convolution.DeConv3DDerivative;
import org.nd4j.linalg.factory.Nd4j;

/**
 * What the convolution and transposed convolution kernel layers do alike around libnd4j's ops (the same argument
 * order, the same keys).
 */
final class ConvOpCalls {

    // One instance of each op for every call and thread: run on a context, an op gives the executioner only its name
    // and hash, but each new one draws a UUID from SecureRandom (ND4J's DifferentialFunction), a lock both workers of
    // cpu:2 meet and a /dev/urandom read every second op, and code C2 then compiled in a run's sixth epoch
    static final CustomOp CONV2D = new Conv2D();
    static final CustomOp CONV2D_BP = new Conv2DDerivative();
    static final CustomOp CONV3D = new Conv3D();
    static final CustomOp CONV3D_BP = new Conv3DDerivative();
    static final CustomOp DECONV2D = new DeConv2D();
    static final CustomOp DECONV2D_BP = new DeConv2DDerivative();
    static final CustomOp DECONV3D = new DeConv3D();
    static final CustomOp DECONV3D_BP = new DeConv3DDerivative();

    private ConvOpCalls() {}

    /**
     * {@code c} (a new one when null) cleared and given the op's integer arguments: for a layer whose arguments depend
     * on the input's size (the transposed convolutions' same-mode padding), called before each pass.
     */
    static OpContext ready(OpContext c, long... iArgs) {
        OpContext ctx = c == null ? Nd4j.getExecutioner().buildContext() : c;
        ctx.purge();
        ctx.setIArguments(iArgs);
        return ctx;
    }

    /**
     * Whether a transposed convolution's "same" padding is (k − s) / 2 on both sides of every axis (k − s even and not
     * negative), so that the ops can be given it as explicit padding: in libnd4j's same mode deconv2d measured 2.5×
     * (forward) and 4.5× (backward) slower on the U-Net's 2×2 stride-2 up-sampling (its outputs differing in the last
     * bits: another implementation, most likely oneDNN's), deconv3d 1.9× slower forward on a 3D decoder's.
     */
    static boolean symmetricSamePadding(int[] kernel, int[] stride) {
        for (int i = 0; i < kernel.length; i++) {
            int extra = kernel[i] - stride[i];
            if (extra < 0 || extra % 2 != 0) {
                return false;
            }
        }
        return true;
    }

    /** The op's forward pass on a reused context: inputs x, W and the bias (when there is one); output out. */
    static void forward(OpContext ctx, CustomOp op, INDArray x, INDArray w, INDArray b, INDArray out) {
        ctx.purge();
        ctx.setInputArray(0, x);
        ctx.setInputArray(1, w);
        if (b != null) {
            ctx.setInputArray(2, b);
        }
        ctx.setOutputArray(0, out);
        Nd4j.exec(op, ctx);
    }

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

    /** A [1, n] bias or its gradient as the rank-1 array the ops take (a view: written through). */
    static INDArray vector(INDArray a) {
        return a.reshape(a.length());
    }
}
