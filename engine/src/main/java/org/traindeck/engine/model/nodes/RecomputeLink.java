package org.traindeck.engine.model.nodes;

import java.util.Arrays;
import java.util.function.Supplier;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A recomputing layer's place in a chain ({@link RecomputeChains}): the layer whose output is its input and which it
 * computes again itself (null: it keeps its input), and whether its own consumer does the same with it.
 */
final class RecomputeLink {

    private ExampleSlices.Sliceable source;
    private boolean feedsConsumer;
    private long[] placeholderInput;
    private INDArray placeholder;

    ExampleSlices.Sliceable source() {
        return source;
    }

    boolean feedsConsumer() {
        return feedsConsumer;
    }

    void readFrom(ExampleSlices.Sliceable producer) {
        source = producer;
        producer.link().feedsConsumer = true;
    }

    /**
     * An array of the output's shape and data type for an input of {@code inputShape} that holds no data of its own
     * (every element is the one zero of a one-element buffer): what DL4J's graph passes on to the consumer, which reads
     * only its shape. {@code firstExample} (the output for the first example; only its shape and type are read) is
     * asked once per input shape.
     */
    INDArray placeholder(long[] inputShape, Supplier<INDArray> firstExample) {
        if (placeholder == null || !Arrays.equals(inputShape, placeholderInput)) {
            INDArray example = firstExample.get();
            long[] shape = example.shape().clone();
            shape[0] = inputShape[0];
            try (MemoryWorkspace none = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
                // detached: DL4J's graph takes arrays outside its workspaces as they are
                DataBuffer one = Nd4j.zeros(example.dataType(), 1).data();
                placeholder = Nd4j.create(one, shape, new long[shape.length], 0, 'c');
            }
            placeholderInput = inputShape.clone();
        }
        return placeholder;
    }
}
