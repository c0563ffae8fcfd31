package org.traindeck.engine.model.kernels.dense;

import org.bytedeco.javacpp.FloatPointer;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.traindeck.engine.model.kernels.Sgemm;

/**
 * The three products of a softmax head on DL4J's weights W [C, K], each one {@link Sgemm} call on rows in native
 * memory: the logits Z = X W, W's gradient Xᵀ dZ written in W's own layout, and the input's gradient dZ Wᵀ. W in
 * DL4J's default 'f' order is row-major [K, C] and used transposed; a row-major [C, K] W is used as it is.
 */
final class HeadProducts {

    private HeadProducts() {}

    /** Z [n, K] = X [n, C] W. */
    static void logits(FloatPointer x, INDArray w, FloatPointer z, int n, int c, int k, String who) {
        Sgemm.multiply(
                false, transposed(w), n, k, c, 1, x, 0, c, weights(w, who), 0, transposed(w) ? c : k, 0, z, 0, k);
    }

    /** dW = Xᵀ dZ into W's gradient view, which must be laid out as W. */
    static void weightGradient(
            FloatPointer dz, FloatPointer x, INDArray w, INDArray dW, int n, int c, int k, String who) {
        if (dW.ordering() != w.ordering() || dW.elementWiseStride() != 1) {
            throw new IllegalStateException(who + ": W's gradient is not laid out as W");
        }
        if (transposed(w)) {
            // dW as row-major [K, C] = dZᵀ X
            Sgemm.multiply(true, false, k, c, n, 1, dz, 0, k, x, 0, c, 0, Sgemm.pointerTo(dW), 0, c);
        } else {
            Sgemm.multiply(true, false, c, k, n, 1, x, 0, c, dz, 0, k, 0, Sgemm.pointerTo(dW), 0, k);
        }
    }

    /** dX [n, C] = dZ Wᵀ. */
    static void inputGradient(FloatPointer dz, INDArray w, FloatPointer dx, int n, int c, int k, String who) {
        Sgemm.multiply(
                false, !transposed(w), n, c, k, 1, dz, 0, k, weights(w, who), 0, transposed(w) ? c : k, 0, dx, 0, c);
    }

    /** Whether W's memory is [K, C] row-major (DL4J's default 'f' [C, K]); false when it is [C, K] row-major. */
    private static boolean transposed(INDArray w) {
        return w.ordering() == 'f';
    }

    private static FloatPointer weights(INDArray w, String who) {
        if (w.elementWiseStride() != 1) {
            throw new IllegalStateException(who + ": W is not a dense view");
        }
        return Sgemm.pointerTo(w);
    }
}
