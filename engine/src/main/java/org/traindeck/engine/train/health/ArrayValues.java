package org.traindeck.engine.train.health;

import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * An array's values in 'c' order as doubles, read from its own memory where it is a float array laid out that way (a
 * layer's parameters and gradients are views of that kind), from one copy otherwise.
 */
final class ArrayValues {

    private final FloatBuffer floats;
    private final DoubleBuffer doubles;
    private final int length;

    private ArrayValues(FloatBuffer floats, DoubleBuffer doubles, int length) {
        this.floats = floats;
        this.doubles = doubles;
        this.length = length;
    }

    static ArrayValues of(INDArray a) {
        int n = Math.toIntExact(a.length());
        if (a.dataType() == DataType.FLOAT) {
            INDArray c = inOrder(a);
            return new ArrayValues(
                    c.data().asNioFloat().position((int) c.offset()).slice(), null, n);
        }
        INDArray c = inOrder(a.castTo(DataType.DOUBLE));
        return new ArrayValues(
                null, c.data().asNioDouble().position((int) c.offset()).slice(), n);
    }

    /** {@code a} when its values lie one after the other in 'c' order, else a copy that has them so. */
    private static INDArray inOrder(INDArray a) {
        boolean contiguous = a.ordering() == 'c' && a.elementWiseStride() == 1 || a.length() == 1;
        return contiguous ? a : a.dup('c');
    }

    int length() {
        return length;
    }

    double get(int i) {
        return floats != null ? floats.get(i) : doubles.get(i);
    }
}
