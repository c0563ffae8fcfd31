package org.traindeck.engine.train.samples;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.nd4j.linalg.api.buffer.DataType;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.train.batch.BatchMaker;

/**
 * The fixed examples a stage's sample predictions are made on: chosen once from the run's seed among the validation
 * data, and copied out of it (a memory-mapped file may be closed at the stage's end while a prediction still runs).
 *
 * @param indices  the examples' positions in the validation data, ascending
 * @param data     the examples themselves, in that order, held in memory
 * @param batch    the examples as the network takes them (null when there are none)
 */
public record SampleSet(int[] indices, Dataset data, BatchMaker.Batch batch) {

    /** A text model continues only a few prompts: each takes one forward pass per generated token. */
    public static final int MAX_PROMPTS = 4;

    /** {@code count} examples of {@code validation} (fewer when it is smaller), the same ones for the same seed. */
    public static SampleSet choose(Dataset validation, int count, long seed, boolean images, DataType dataType) {
        int n = Math.min(validation.size(), validation.task() == Task.SEQUENCE ? Math.min(count, MAX_PROMPTS) : count);
        int[] picked = Arrays.copyOf(
                DataLoader.permutation(validation.size(), new SplittableRandom(seed ^ 0x53414D504C45L)), n);
        Arrays.sort(picked);
        Dataset held = validation.copied(picked);
        if (n == 0) {
            return new SampleSet(picked, held, null);
        }
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        BatchMaker.Batch batch = new BatchMaker(held, images, null, dataType).batch(order, 0, n, 0, 0, 0, false);
        return new SampleSet(picked, held, batch);
    }

    public int size() {
        return indices.length;
    }
}
