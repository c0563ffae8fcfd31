package org.traindeck.engine.train.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.traindeck.engine.config.AugmentationConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.FloatSamples;
import org.traindeck.engine.data.InputArray;
import org.traindeck.engine.data.SampleShape;

/**
 * Batches of named inputs: every input's rows stay aligned with each other and with the targets, shuffled or not, and
 * augmentation turns and flips every image input of the first's size with the same draws while a vector input is
 * left as it is.
 */
class NamedInputBatchesTest {

    private static final int N = 24;

    /** Two copies of the same 4×4 images (a view and its twin), a vector that encodes the sample's index, the index as class. */
    private static Dataset twins() {
        float[] images = new float[N * 16];
        float[] codes = new float[N * 2];
        float[] classes = new float[N];
        for (int i = 0; i < N; i++) {
            for (int p = 0; p < 16; p++) {
                images[i * 16 + p] = i * 100 + p;
            }
            codes[i * 2] = i;
            codes[i * 2 + 1] = -i;
            classes[i] = i % 3;
        }
        SampleShape image = new SampleShape.Image(1, 4, 4);
        return Dataset.named(
                List.of(
                        new InputArray("view", new FloatSamples(images, 16), image, 0),
                        new InputArray("twin", new FloatSamples(images.clone(), 16), image, 0),
                        new InputArray("code", new FloatSamples(codes, 2), new SampleShape.Flat(2), 0)),
                Task.CLASSIFICATION,
                new FloatSamples(classes, 1),
                null,
                3);
    }

    @Test
    void augmentedImagesTurnTogetherAndEveryInputStaysWithItsSample() {
        Dataset data = twins();
        BatchMaker maker = new BatchMaker(data, true, new AugmentationConfig(true, true, true, 0, 0), DataType.FLOAT);
        int[] order = BatchMaker.epochOrder(N, true, 9, 0, 1);
        boolean turned = false;
        for (int b = 0; b < 3; b++) {
            BatchMaker.Batch batch = maker.batch(order, b, 8, 9, 0, 1, true);
            float[] view = batch.inputs()[0].dup().data().asFloat();
            float[] twin = batch.inputs()[1].dup().data().asFloat();
            float[] code = batch.inputs()[2].dup().data().asFloat();
            float[] labels = batch.labels().dup().data().asFloat();
            assertThat(twin).containsExactly(view);
            for (int i = 0; i < batch.size(); i++) {
                int sample = order[b * 8 + i];
                assertThat(code[i * 2]).isEqualTo(sample);
                assertThat(labels[i * 3 + sample % 3]).isEqualTo(1f);
                // the pixels are the sample's own, in whatever order the draws put them
                float min = Float.MAX_VALUE;
                for (int p = 0; p < 16; p++) {
                    min = Math.min(min, view[i * 16 + p]);
                    turned |= view[i * 16 + p] != sample * 100 + p;
                }
                assertThat(min).isEqualTo(sample * 100f);
            }
        }
        assertThat(turned).as("some image was turned or flipped").isTrue();
    }
}
