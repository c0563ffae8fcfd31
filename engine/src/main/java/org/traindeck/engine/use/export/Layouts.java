package org.traindeck.engine.use.export;

import java.util.List;
import java.util.Map;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;

/** DL4J parameter arrays turned into PyTorch's shapes, as float32 in row-major order. */
final class Layouts {

    private Layouts() {}

    /** The array with its shape as it is. */
    static NamedTensor same(String name, INDArray a) {
        return tensor(name, a, a.shape());
    }

    /** A [1, n] or [n] row as [n]. */
    static NamedTensor vector(String name, INDArray a) {
        return tensor(name, a, new long[] {a.length()});
    }

    /** A matrix [in, out] (DL4J's dense weights) as [out, in] (torch.nn.Linear's). */
    static NamedTensor transposed(String name, INDArray a) {
        INDArray t = a.transpose();
        return tensor(name, t, t.shape());
    }

    /** Columns [from, to) of a matrix [in, n], transposed to [to - from, in]. */
    static NamedTensor columnsTransposed(String name, INDArray a, long from, long to) {
        return transposed(name, a.get(NDArrayIndex.all(), NDArrayIndex.interval(from, to)));
    }

    /** Values [from, to) of a row [1, n] or [n], as a vector. */
    static NamedTensor slice(String name, INDArray a, long from, long to) {
        INDArray row = a.reshape(a.length());
        return vector(name, row.get(NDArrayIndex.interval(from, to)));
    }

    static NamedTensor tensor(String name, INDArray a, long[] shape) {
        INDArray c = a.castTo(DataType.FLOAT).dup('c');
        return new NamedTensor(name, shape, c.reshape(c.length()).toFloatVector());
    }

    /** torch.nn.Linear's weight and, where the layer has one, bias. */
    static List<NamedTensor> linear(String prefix, INDArray w, INDArray b) {
        NamedTensor weight = transposed(prefix + ".weight", w);
        return b == null ? List.of(weight) : List.of(weight, vector(prefix + ".bias", b));
    }

    /** The parameter {@code key}; an export that cannot find it says which node lacks what. */
    static INDArray param(String node, Map<String, INDArray> params, String key) {
        INDArray a = params.get(key);
        if (a == null) {
            throw new ExportException(
                    "node '" + node + "' has no parameter '" + key + "' (it has " + params.keySet() + ")");
        }
        return a;
    }
}
