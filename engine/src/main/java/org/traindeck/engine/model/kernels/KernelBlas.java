package org.traindeck.engine.model.kernels;

import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.shape.Shape;

import java.nio.FloatBuffer;

import static org.bytedeco.openblas.global.openblas.CblasNoTrans;
import static org.bytedeco.openblas.global.openblas.CblasRowMajor;
import static org.bytedeco.openblas.global.openblas.CblasTrans;
import static org.bytedeco.openblas.global.openblas.cblas_sgemm;

/**
 * Direct OpenBLAS products on ND4J arrays' host memory: 8× faster than {@code INDArray.mmul} at transformer shapes
 * (/work/shared/README.md), since nothing is allocated, checked or dispatched. ND4J's natives link the same
 * libopenblas, so its thread setting applies. The kernels' own; the transformer block has its own twin (Sgemm) until
 * the two are merged.
 */
final class KernelBlas {

    private KernelBlas() {
    }

    /** Whether {@code a} is float, row-major and dense, so that its memory can be handed to BLAS as it is. */
    static boolean isDenseRowMajor(INDArray a) {
        return a.dataType() == DataType.FLOAT && a.ordering() == 'c' && Shape.hasDefaultStridesForShape(a);
    }

    /** The first element of a dense float array (offset of a view included). */
    static FloatPointer pointer(INDArray a) {
        if (a.dataType() != DataType.FLOAT) {
            throw new IllegalArgumentException("the CPU kernels compute in float32, got " + a.dataType());
        }
        return new FloatPointer(a.data().addressPointer());
    }

    /** The array's memory as a buffer, for bulk copies to and from Java arrays. */
    static FloatBuffer buffer(INDArray a) {
        long n = a.length();
        return pointer(a).capacity(n).limit(n).asBuffer();
    }

    /** C = alpha·op(A)·op(B) + beta·C, all row-major; m×k times k×n into m×n. */
    static void gemm(boolean transA, boolean transB, int m, int n, int k, FloatPointer a, int lda, FloatPointer b, int ldb,
                     float beta, FloatPointer c, int ldc) {
        cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans, m, n, k, 1f,
                a, lda, b, ldb, beta, c, ldc);
    }
}
