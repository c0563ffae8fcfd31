package org.traindeck.engine.model.kernels.conv;

import java.util.OptionalDouble;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A loss head's sum from its backward pass, kept for the loss the graph asks for right after it (one pass over the
 * output instead of two): given back once, and only for the same input and labels arrays. The head forgets it when an
 * input or labels are set, so an array changed in place and set again is read again.
 */
final class KeptLoss {

    private double sum;
    private INDArray input;
    private INDArray labels;

    void keep(double sum, INDArray input, INDArray labels) {
        this.sum = sum;
        this.input = input;
        this.labels = labels;
    }

    void forget() {
        input = null;
        labels = null;
    }

    /** The sum kept for these arrays, if any; forgotten either way. */
    OptionalDouble take(INDArray input, INDArray labels) {
        boolean same = this.input != null && this.input == input && this.labels == labels;
        forget();
        return same ? OptionalDouble.of(sum) : OptionalDouble.empty();
    }
}
