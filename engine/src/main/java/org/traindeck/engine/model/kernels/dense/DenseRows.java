package org.traindeck.engine.model.kernels.dense;

import java.nio.FloatBuffer;
import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.model.kernels.KernelActivation;
import org.traindeck.engine.model.kernels.Sgemm;

/** Buffers of one batch shape, kept between steps (a new shape replaces them). */
final class DenseRows {

    private int n = -1;
    private int in;
    private int out;
    private INDArray x;
    private INDArray zNative;
    private INDArray deltaNative;
    private INDArray dx;
    private FloatPointer xPtr;
    private FloatPointer zPtr;
    private FloatPointer deltaPtr;
    private FloatPointer dxPtr;
    private FloatBuffer zBuf;
    private FloatBuffer deltaBuf;
    private float[] z;
    private float[] a;
    private float[] delta;
    private float[] saved;
    private float[] scratchIn;
    private float[] scratchNcw;
    /** Whether x points at the layer's input itself (a dense row-major batch of rows) rather than a copy. */
    private INDArray inputItself;

    void shape(int n, int in, int out) {
        if (n == this.n && in == this.in && out == this.out) {
            return;
        }
        this.n = n;
        this.in = in;
        this.out = out;
        x = null;
        xPtr = null;
        zNative = Nd4j.createUninitializedDetached(DataType.FLOAT, n, out);
        deltaNative = Nd4j.createUninitializedDetached(DataType.FLOAT, n, out);
        zPtr = Sgemm.pointerTo(zNative);
        deltaPtr = Sgemm.pointerTo(deltaNative);
        zBuf = Sgemm.buffer(zNative);
        deltaBuf = Sgemm.buffer(deltaNative);
        dx = null;
        dxPtr = null;
        z = new float[n * out];
        a = new float[n * out];
        delta = new float[n * out];
        saved = null;
        scratchIn = null;
    }

    boolean holds(int n, int in, int out) {
        return n == this.n && in == this.in && out == this.out && xPtr != null;
    }

    /** Makes xPointer() the input as rows [n, in]: the input's own memory when it already is, else a copy. */
    void loadInput(INDArray input, boolean sequence, int mb, int steps) {
        if (!sequence && Sgemm.isDenseRowMajor(input)) {
            inputItself = input;
            xPtr = Sgemm.pointerTo(input);
            return;
        }
        inputItself = null;
        if (x == null) {
            x = Nd4j.createUninitializedDetached(DataType.FLOAT, n, in);
        }
        if (!sequence) {
            x.assign(input);
        } else {
            float[] src = asRowMajor(input, mb * in * steps);
            float[] dst = scratchIn(n * in);
            transposeSteps(src, dst, mb, in, steps, false);
            Sgemm.buffer(x).put(0, dst, 0, n * in);
        }
        xPtr = Sgemm.pointerTo(x);
    }

    /** Reads a gradient [n, width] or [mb, width, T] into rows of {@code dst}. */
    void loadRows(INDArray eps, float[] dst, boolean sequence, int mb, int steps, int width) {
        if (!sequence) {
            if (Sgemm.isDenseRowMajor(eps)) {
                Sgemm.buffer(eps).get(0, dst, 0, n * width);
            } else {
                eps.castTo(DataType.FLOAT).dup('c').data().asNioFloat().get(dst, 0, n * width);
            }
            return;
        }
        float[] src = asRowMajor(eps, mb * width * steps);
        transposeSteps(src, dst, mb, width, steps, false);
    }

    /** Writes rows [n, width] to {@code target} ([n, width], or [mb, width, T] for a sequence). */
    void store(float[] rowsOut, INDArray target, boolean sequence, int mb, int steps, int width) {
        if (!sequence) {
            Sgemm.buffer(target).put(0, rowsOut, 0, n * width);
            return;
        }
        float[] tmp = scratchNcw(n * width);
        transposeSteps(rowsOut, tmp, mb, width, steps, true);
        Sgemm.buffer(target).put(0, tmp, 0, n * width);
    }

    void storeInputGradient(INDArray target, int mb, int steps, int width) {
        float[] rowsIn = scratchIn(n * width);
        Sgemm.buffer(dx).get(0, rowsIn, 0, n * width);
        store(rowsIn, target, true, mb, steps, width);
    }

    /**
     * Between [mb, width, T] (NCW) and rows [mb·T, width]: {@code back} false reads NCW into rows, true writes rows
     * as NCW.
     */
    private static void transposeSteps(float[] src, float[] dst, int mb, int width, int steps, boolean back) {
        for (int s = 0; s < mb; s++) {
            int base = s * width * steps;
            for (int c = 0; c < width; c++) {
                int ncw = base + c * steps;
                int row = base + c;
                for (int t = 0; t < steps; t++) {
                    if (back) {
                        dst[ncw + t] = src[row + t * width];
                    } else {
                        dst[row + t * width] = src[ncw + t];
                    }
                }
            }
        }
    }

    private float[] asRowMajor(INDArray a, int length) {
        float[] out = scratchNcw(length);
        if (Sgemm.isDenseRowMajor(a)) {
            Sgemm.buffer(a).get(0, out, 0, length);
        } else {
            a.castTo(DataType.FLOAT).dup('c').data().asNioFloat().get(out, 0, length);
        }
        return out;
    }

    /** Sequences as they come ([mb, width, T]), read or written one at a time. */
    private float[] scratchNcw(int length) {
        if (scratchNcw == null || scratchNcw.length < length) {
            scratchNcw = new float[length];
        }
        return scratchNcw;
    }

    private float[] scratchIn(int length) {
        if (scratchIn == null || scratchIn.length < length) {
            scratchIn = new float[length];
        }
        return scratchIn;
    }

    FloatPointer xPointer() {
        return xPtr;
    }

    FloatPointer zPointer() {
        return zPtr;
    }

    FloatPointer deltaPointer() {
        return deltaPtr;
    }

    FloatPointer dxPointer() {
        if (dx == null) {
            dx = Nd4j.createUninitializedDetached(DataType.FLOAT, n, in);
            dxPtr = Sgemm.pointerTo(dx);
        }
        return dxPtr;
    }

    FloatBuffer zBuffer() {
        return zBuf;
    }

    FloatBuffer deltaBuffer() {
        return deltaBuf;
    }

    float[] z() {
        return z;
    }

    float[] a() {
        return a;
    }

    float[] delta() {
        return delta;
    }

    /** What the activation keeps from the forward pass for the backward pass (none for the piecewise linear ones). */
    float[] saved(KernelActivation activation) {
        if (!activation.saves()) {
            return null;
        }
        if (saved == null) {
            saved = new float[z.length];
        }
        return saved;
    }
}
