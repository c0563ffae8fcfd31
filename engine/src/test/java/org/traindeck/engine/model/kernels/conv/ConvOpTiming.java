package org.traindeck.engine.model.kernels.conv;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.OpContext;
import org.nd4j.linalg.api.ops.impl.layers.convolution.Conv2D;
import org.nd4j.linalg.api.ops.impl.layers.convolution.Conv2DDerivative;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.train.Nd4jRuntime;

/**
 * A measurement, not a test: libnd4j's conv2d and conv2d_bp ops alone, called as {@link ConvKernelLayer} calls them
 * (NCHW input, weights [oC, iC, kH, kW], a reused context, every array allocated once), at the shapes of the bench's
 * convolutional networks; the same calls in NHWC (weights [oC, kH, kW, iC]) alternated with them call by call.
 * Prints the least and the median thread CPU time of a forward and a backward call per shape; pytorch_conv_ops.py is its peer.
 * java -cp test-classes:classes:deps org.traindeck.engine.model.kernels.conv.ConvOpTiming [calls] [names]
 */
public final class ConvOpTiming {

    /** name, batch, channels in, filters, image size, window. */
    static final Object[][] SHAPES = {
        {"unet.enc1a", 32, 1, 16, 32, 3}, {"unet.enc1b", 32, 16, 16, 32, 3}, {"unet.enc2a", 32, 16, 32, 16, 3},
        {"unet.enc2b", 32, 32, 32, 16, 3}, {"unet.bottom1", 32, 32, 64, 8, 3}, {"unet.bottom2", 32, 64, 64, 8, 3},
        {"unet.dec2a", 32, 96, 32, 16, 3}, {"unet.dec2b", 32, 32, 32, 16, 3}, {"unet.dec1a", 32, 48, 16, 32, 3},
        {"unet.dec1b", 32, 16, 16, 32, 3}, {"resnet18.s1", 32, 64, 64, 32, 3}, {"resnet18.s3", 32, 256, 256, 8, 3},
        {"unet128.l1", 4, 64, 64, 128, 3}, {"unet128.l3", 4, 256, 256, 32, 3}
    };

    private ConvOpTiming() {}

    public static void main(String[] args) {
        Nd4jRuntime.init();
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        String only = args.length > 1 ? args[1] : "";
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Nd4j.getRandom().setSeed(1);
        for (Object[] s : SHAPES) {
            if (!only.isEmpty() && !only.contains((String) s[0])) {
                continue;
            }
            int n = (Integer) s[1];
            int c = (Integer) s[2];
            int o = (Integer) s[3];
            int hw = (Integer) s[4];
            int k = (Integer) s[5];
            Call[] variants = {new Call(n, c, o, hw, k, false), new Call(n, c, o, hw, k, true)};
            double[][][] ms = new double[2][2][calls];
            for (int call = -3; call < calls; call++) {
                for (int v = 0; v < 2; v++) {
                    int at = (v + Math.max(call, 0)) % 2;
                    long t0 = bean.getCurrentThreadCpuTime();
                    variants[at].forward();
                    long t1 = bean.getCurrentThreadCpuTime();
                    variants[at].backward();
                    long t2 = bean.getCurrentThreadCpuTime();
                    if (call >= 0) {
                        ms[at][0][call] = (t1 - t0) / 1e6;
                        ms[at][1][call] = (t2 - t1) / 1e6;
                    }
                }
            }
            double gflop = 2.0 * n * o * hw * hw * c * k * k / 1e9;
            System.out.printf(
                    "%-13s %2dx%3d->%3d @%3d %.3f GFLOP  NCHW fwd %s bwd %s  NHWC fwd %s bwd %s ms (min / median)%n",
                    s[0],
                    n,
                    c,
                    o,
                    hw,
                    gflop,
                    figures(ms[0][0]),
                    figures(ms[0][1]),
                    figures(ms[1][0]),
                    figures(ms[1][1]));
        }
        System.exit(0);
    }

    /** One op pair's arrays and contexts, allocated once. */
    private static final class Call {
        final INDArray x;
        final INDArray w;
        final INDArray b;
        final INDArray y;
        final INDArray dz;
        final INDArray dx;
        final INDArray dW;
        final INDArray db;
        final OpContext fwd;
        final OpContext bwd;

        Call(int n, int c, int o, int hw, int k, boolean nhwc) {
            x = nhwc ? Nd4j.randn(DataType.FLOAT, n, hw, hw, c) : Nd4j.randn(DataType.FLOAT, n, c, hw, hw);
            w = nhwc ? Nd4j.randn(DataType.FLOAT, o, k, k, c) : Nd4j.randn(DataType.FLOAT, o, c, k, k);
            b = Nd4j.randn(DataType.FLOAT, o);
            y = nhwc ? Nd4j.create(DataType.FLOAT, n, hw, hw, o) : Nd4j.create(DataType.FLOAT, n, o, hw, hw);
            dz = Nd4j.randn(DataType.FLOAT, y.shape());
            dx = Nd4j.create(DataType.FLOAT, x.shape());
            dW = Nd4j.create(DataType.FLOAT, w.shape());
            db = Nd4j.create(DataType.FLOAT, o);
            fwd = context(k, nhwc);
            bwd = context(k, nhwc);
        }

        static OpContext context(int k, boolean nhwc) {
            OpContext ctx = Nd4j.getExecutioner().buildContext();
            ctx.setIArguments(k, k, 1, 1, k / 2, k / 2, 1, 1, 1, nhwc ? 1 : 0, nhwc ? 2 : 1);
            return ctx;
        }

        void forward() {
            fwd.purge();
            fwd.setInputArray(0, x);
            fwd.setInputArray(1, w);
            fwd.setInputArray(2, b);
            fwd.setOutputArray(0, y);
            Nd4j.exec(new Conv2D(), fwd);
        }

        void backward() {
            ConvOpCalls.backward(bwd, new Conv2DDerivative(), x, w, b, dz, dx, dW, db);
        }
    }

    private static String figures(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return String.format("%7.3f / %7.3f", s[0], s[s.length / 2]);
    }
}
