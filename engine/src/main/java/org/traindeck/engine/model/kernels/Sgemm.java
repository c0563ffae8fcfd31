package org.traindeck.engine.model.kernels;

import static org.bytedeco.openblas.global.openblas.CblasNoTrans;
import static org.bytedeco.openblas.global.openblas.CblasRowMajor;
import static org.bytedeco.openblas.global.openblas.CblasTrans;
import static org.bytedeco.openblas.global.openblas.cblas_sgemm;
import static org.bytedeco.openblas.global.openblas.cblas_sgemv;

import java.nio.FloatBuffer;
import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Row-major single-precision matrix products straight on native memory: C = alpha op(A) op(B) + beta C, with each
 * operand given as a base pointer, an offset in floats and a leading dimension, so that a head's columns or one
 * example's rows are multiplied in place, with no ND4J op and no copy. ND4J's {@code mmul} at a transformer's shapes
 * runs at a tenth of OpenBLAS's speed (see /work/shared/README.md); this calls the same OpenBLAS directly.
 */
public final class Sgemm {

    /**
     * Three reusable pointers per thread (A, B, C) set to an operand's address and offset, instead of three new
     * JavaCPP pointers per call (the attention makes ~1,500 small products per block and step). In a steady loop the
     * two cost the same (2.4-2.7 µs a 50 × 50 × 16 product, 2026-11-25); one run with fresh pointers took 5 µs a call.
     */
    private static final ThreadLocal<Cursor[]> CURSORS =
            ThreadLocal.withInitial(() -> new Cursor[] {new Cursor(), new Cursor(), new Cursor()});

    /** A float pointer that is moved, not allocated: JavaCPP passes address + position to the native call. */
    private static final class Cursor extends FloatPointer {
        public Cursor at(FloatPointer base, long offset) {
            address = base.address();
            position = base.position() + offset;
            limit = base.limit();
            capacity = base.capacity();
            return this;
        }
    }

    private Sgemm() {}

    /**
     * @param transA use A transposed (A is stored [k, m] with leading dimension lda)
     * @param transB use B transposed (B is stored [n, k] with leading dimension ldb)
     */
    public static void multiply(
            boolean transA,
            boolean transB,
            int m,
            int n,
            int k,
            float alpha,
            FloatPointer a,
            long aOffset,
            int lda,
            FloatPointer b,
            long bOffset,
            int ldb,
            float beta,
            FloatPointer c,
            long cOffset,
            int ldc) {
        if (m == 0 || n == 0) {
            return;
        }
        Cursor[] cursors = CURSORS.get();
        cblas_sgemm(
                CblasRowMajor,
                transA ? CblasTrans : CblasNoTrans,
                transB ? CblasTrans : CblasNoTrans,
                m,
                n,
                k,
                alpha,
                cursors[0].at(a, aOffset),
                lda,
                cursors[1].at(b, bOffset),
                ldb,
                beta,
                cursors[2].at(c, cOffset),
                ldc);
    }

    /** y = the column sums of row-major A [m, n] (from {@code aOffset}, leading dimension lda), as A^T ones. */
    public static void columnSums(
            int m, int n, FloatPointer a, long aOffset, int lda, FloatPointer ones, FloatPointer y, long yOffset) {
        if (n == 0) {
            return;
        }
        Cursor[] cursors = CURSORS.get();
        cblas_sgemv(
                CblasRowMajor,
                CblasTrans,
                m,
                n,
                1,
                cursors[0].at(a, aOffset),
                lda,
                ones,
                1,
                0,
                cursors[2].at(y, yOffset),
                1);
    }

    /**
     * The memory of a float array as a pointer at its first element. The array must be dense in its own order (a
     * whole array, or a view of one contiguous range of its buffer).
     */
    public static FloatPointer pointerTo(INDArray array) {
        if (array.dataType() != DataType.FLOAT) {
            throw new IllegalArgumentException("float32 arrays only, got " + array.dataType());
        }
        if (array.length() > 0 && array.elementWiseStride() != 1) {
            throw new IllegalArgumentException("the array is not dense (a strided view): " + array.shapeInfoToString());
        }
        // a view's data buffer already starts at the view's first element
        FloatPointer p = new FloatPointer(array.data().addressPointer());
        return p.position(0).capacity(array.length()).limit(array.length());
    }

    /**
     * Whether {@code a} is float, row-major and dense, so that its memory can be handed to BLAS as it is. The stride of
     * a dimension of size 1 is never used, so it is not compared: ND4J's {@code Shape.hasDefaultStridesForShape}
     * wants strictly falling strides and so refused every one-channel volume or image ([n, 1, d, h, w] has two equal
     * strides), which sent them through a copy each time they were read or written.
     */
    public static boolean isDenseRowMajor(INDArray a) {
        if (a.dataType() != DataType.FLOAT || a.ordering() != 'c') {
            return false;
        }
        long[] shape = a.shape();
        long[] stride = a.stride();
        long dense = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] != 1 && stride[i] != dense) {
                return false;
            }
            dense *= shape[i];
        }
        return true;
    }

    /** The array itself where it is {@link #isDenseRowMajor}, else a dense row-major copy (the kernels' loops need one). */
    public static INDArray dense(INDArray a) {
        return isDenseRowMajor(a) ? a : a.dup('c');
    }

    /** The array's memory as a buffer, for bulk copies to and from Java arrays. */
    public static FloatBuffer buffer(INDArray a) {
        return pointerTo(a).asBuffer();
    }
}
