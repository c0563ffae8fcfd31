package org.traindeck.engine.weights;

import java.io.Closeable;
import java.util.Arrays;
import java.util.Map;

/** Named tensors in a file, listed from its header; a tensor's values are read only when asked for. */
interface TensorFile extends Closeable {

    /** One tensor as the file describes it; {@code floating}: its values can be read as floats. */
    record Entry(String name, long[] shape, String dtype, boolean floating) {
        String shapeText() {
            return Arrays.toString(shape);
        }
    }

    /** What the file is, for messages ("model.safetensors"). */
    String source();

    /** Every tensor in the file's order. */
    Map<String, Entry> entries();

    /** The tensor's values as float32, in row-major order. */
    float[] read(String name);

    @Override
    void close();
}
