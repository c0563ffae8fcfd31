package org.traindeck.engine.train.batch;

import java.util.SplittableRandom;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.AugmentationConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.Augmenter;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;

/**
 * Cuts a dataset into minibatches for one epoch. The sample order and every augmentation draw are functions of
 * (seed, stage, epoch, position in the epoch), so an epoch can be replayed exactly, for example after a resume, and
 * cut into batches of any size on any number of devices with the same samples and draws.
 */
public final class BatchMaker {

    /** One minibatch: inputs (flat rows, or the samples' own shape) and targets as the task's head takes them. */
    public record Batch(INDArray features, INDArray labels, int size) {}

    private final Dataset data;
    private final boolean images;
    private final Augmenter augmenter;
    private final DataType dataType;
    private final double noise;

    public BatchMaker(Dataset data, boolean images, AugmentationConfig augmentation, DataType dataType) {
        this(data, images, augmentation, dataType, 0);
    }

    /** @param noise the standard deviation of Gaussian noise on a reconstruction's training inputs (0: none) */
    BatchMaker(Dataset data, boolean images, AugmentationConfig augmentation, DataType dataType, double noise) {
        this.noise = data.task() == Task.RECONSTRUCTION ? noise : 0;
        this.data = data;
        this.images = images;
        this.augmenter = augmentation != null && augmentation.isActive() && data.isImage()
                ? new Augmenter(augmentation, data.imageShape())
                : null;
        this.dataType = dataType;
    }

    public int batchesPerEpoch(int batchSize) {
        return (data.size() + batchSize - 1) / batchSize;
    }

    public static int[] epochOrder(int size, boolean shuffle, long seed, int stageIndex, int epoch) {
        if (!shuffle) {
            int[] order = new int[size];
            for (int i = 0; i < size; i++) {
                order[i] = i;
            }
            return order;
        }
        return DataLoader.permutation(size, new SplittableRandom(mix(seed, stageIndex, epoch, -1)));
    }

    public Batch batch(
            int[] order, int batchIndex, int batchSize, long seed, int stageIndex, int epoch, boolean augment) {
        int from = batchIndex * batchSize;
        int n = Math.min(batchSize, order.length - from);
        int d = data.featureCount();
        int t = data.targetLength();
        float[] features = new float[n * d];
        float[] targets = new float[n * t];
        boolean augmenting = augment && augmenter != null;
        boolean masks = data.task() == Task.SEGMENTATION;
        for (int i = 0; i < n; i++) {
            int sample = order[from + i];
            data.copyFeatures(sample, features, i * d);
            if (t > 0) {
                data.copyTargets(sample, targets, i * t);
            }
            if (augmenting) {
                // a function of the sample's position in the epoch, not of the batch: the same draws whatever the
                // batch size and the number of devices the epoch is cut into
                augmenter.apply(
                        features,
                        i * d,
                        masks ? targets : null,
                        i * t,
                        new SplittableRandom(mix(seed, stageIndex, epoch, from + i)));
            }
        }
        long[] shape = images ? data.shape().batchShape(n) : new long[] {n, d};
        INDArray y = TargetEncoder.encode(data, targets, features, n, shape);
        if (augment && noise > 0) {
            // the target stays the clean input: a denoising autoencoder
            for (int i = 0; i < n; i++) {
                SplittableRandom r = new SplittableRandom(mix(seed, stageIndex, epoch, from + i) ^ 0x6E6F697365L);
                for (int j = 0; j < d; j++) {
                    features[i * d + j] += (float) (gaussian(r) * noise);
                }
            }
        }
        INDArray x = Nd4j.create(features, shape, DataType.FLOAT);
        if (dataType != DataType.FLOAT) {
            x = x.castTo(dataType);
            y = y.castTo(dataType);
        }
        return new Batch(x, y, n);
    }

    private static double gaussian(SplittableRandom r) {
        double u = 1 - r.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.nextDouble());
    }

    private static long mix(long seed, int stage, int epoch, int batch) {
        long h = seed * 0x9E3779B97F4A7C15L;
        h = (h ^ stage) * 0xBF58476D1CE4E5B9L;
        h = (h ^ epoch) * 0x94D049BB133111EBL;
        h = (h ^ batch) * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 31);
    }
}
