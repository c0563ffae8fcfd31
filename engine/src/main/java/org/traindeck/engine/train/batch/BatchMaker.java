package org.traindeck.engine.train.batch;

import java.util.SplittableRandom;
import java.util.function.IntToLongFunction;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.AugmentationConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.Augmenter;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.train.diffusion.DiffusionDraws;

/**
 * Cuts a dataset into minibatches for one epoch. The sample order and every augmentation draw are functions of
 * (seed, stage, epoch, position in the epoch), so an epoch can be replayed exactly, for example after a resume, and
 * cut into batches of any size on any number of devices with the same samples and draws.
 */
public final class BatchMaker {

    /**
     * One minibatch: each input (flat rows, or the samples' own shape) in the order the network takes them, the
     * targets as the task's head takes them, and which targets count ([n, T] of 1 and 0; null: all).
     */
    public record Batch(INDArray[] inputs, INDArray labels, INDArray labelMask, int size) {
        public Batch(INDArray features, INDArray labels, int size) {
            this(new INDArray[] {features}, labels, null, size);
        }

        /** The first input (the only one of a single-input model). */
        public INDArray features() {
            return inputs[0];
        }
    }

    private final Dataset data;
    private final boolean images;
    private final Augmenter augmenter;
    private final DataType dataType;
    private final double noise;
    private final DiffusionDraws diffusion;

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
        this.diffusion = data.diffusion() == null ? null : new DiffusionDraws(data.diffusion());
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

    /**
     * Batch {@code batchIndex} of the epoch whose sample order is {@code order}. Only calls: each loop over the
     * batch's samples is a method of its own, so HotSpot compiles each once, at its size, instead of compiling this
     * method again on the stack (OSR) with everything it calls inlined.
     */
    public Batch batch(
            int[] order, int batchIndex, int batchSize, long seed, int stageIndex, int epoch, boolean augment) {
        int from = batchIndex * batchSize;
        int n = Math.min(batchSize, order.length - from);
        int t = data.targetLength();
        float[][] values = inputValues(n);
        float[] targets = new float[n * t];
        float[] mask = data.hasTargetMask() ? new float[n * t] : null;
        copySamples(order, from, n, values, targets, mask);
        if (augment && augmenter != null) {
            augmentSamples(values, targets, n, seed, stageIndex, epoch, from);
        }
        int d = data.featureCount();
        long[] shape = images ? data.shape().batchShape(n) : new long[] {n, d};
        if (diffusion != null) {
            float[] weights = diffusionNoise(values, targets, order, from, n, seed, stageIndex, epoch, augment);
            mask = augment ? weights : null;
        }
        if (augment) {
            addDerivedNoise(values, n, seed, stageIndex, epoch, from);
        }
        INDArray y = TargetEncoder.encode(data, targets, values[0], n, shape);
        if (augment && noise > 0) {
            addNoise(values[0], n, d, seed, stageIndex, epoch, from);
        }
        long[] maskShape = diffusion != null ? shape : new long[] {n, t};
        INDArray m = mask == null ? null : cast(Nd4j.create(mask, maskShape, DataType.FLOAT));
        return new Batch(inputArrays(values, n, shape), cast(y), m, n);
    }

    private float[][] inputValues(int n) {
        float[][] values = new float[data.inputs().size()][];
        for (int k = 0; k < values.length; k++) {
            values[k] = new float[n * data.inputs().get(k).shape().values()];
        }
        return values;
    }

    /** Copies the batch's samples (every input, the targets and their mask) in the epoch's order. */
    private void copySamples(int[] order, int from, int n, float[][] values, float[] targets, float[] mask) {
        for (int i = 0; i < n; i++) {
            copySample(order[from + i], i, values, targets, mask);
        }
    }

    private void copySample(int sample, int i, float[][] values, float[] targets, float[] mask) {
        for (int k = 0; k < values.length; k++) {
            data.copyInput(
                    k, sample, values[k], i * data.inputs().get(k).shape().values());
        }
        int t = data.targetLength();
        if (t > 0) {
            data.copyTargets(sample, targets, i * t);
        }
        if (mask != null) {
            data.copyTargetMask(sample, mask, i * t);
        }
    }

    private void augmentSamples(
            float[][] values, float[] targets, int n, long seed, int stageIndex, int epoch, int from) {
        for (int i = 0; i < n; i++) {
            augment(values, targets, i, mix(seed, stageIndex, epoch, from + i));
        }
    }

    /** Noises a diffusion batch; returns the loss weights the draws give. */
    private float[] diffusionNoise(
            float[][] values,
            float[] targets,
            int[] order,
            int from,
            int n,
            long seed,
            int stageIndex,
            int epoch,
            boolean augment) {
        // training draws are the example's position in the epoch; validation's its index, the same every epoch
        IntToLongFunction seeds = augment
                ? i -> mix(seed, stageIndex, epoch, from + i) ^ DIFFUSION_DRAW
                : i -> mix(DIFFUSION_DRAW, -1, -1, order[from + i]);
        return diffusion.noise(values[0], values[1], targets, n, data.featureCount(), seeds);
    }

    private INDArray[] inputArrays(float[][] values, int n, long[] firstShape) {
        INDArray[] x = new INDArray[values.length];
        for (int k = 0; k < values.length; k++) {
            long[] inputShape =
                    k == 0 ? firstShape : data.inputs().get(k).shape().batchShape(n);
            x[k] = cast(Nd4j.create(values[k], inputShape, DataType.FLOAT));
        }
        return x;
    }

    private INDArray cast(INDArray a) {
        return dataType == DataType.FLOAT ? a : a.castTo(dataType);
    }

    /**
     * Every image input of the first's shape gets the same draws (an image and its mask, or two aligned views turn and
     * flip together): a function of the sample's position in the epoch, not of the batch, so the draws are the same
     * whatever the batch size and the number of devices the epoch is cut into.
     */
    private void augment(float[][] values, float[] targets, int i, long draw) {
        boolean masks = data.task() == Task.SEGMENTATION;
        int t = data.targetLength();
        for (int k = 0; k < values.length; k++) {
            SampleShape shape = data.inputs().get(k).shape();
            if (k > 0 && !shape.equals(data.shape())) {
                continue;
            }
            augmenter.apply(
                    values[k], i * shape.values(), masks && k == 0 ? targets : null, i * t, new SplittableRandom(draw));
        }
    }

    /** Gaussian noise on a reconstruction's inputs; the target stays the clean input (a denoising autoencoder). */
    private void addNoise(float[] features, int n, int d, long seed, int stageIndex, int epoch, int from) {
        for (int i = 0; i < n; i++) {
            SplittableRandom r = new SplittableRandom(mix(seed, stageIndex, epoch, from + i) ^ 0x6E6F697365L);
            for (int j = 0; j < d; j++) {
                features[i * d + j] += (float) (gaussian(r) * noise);
            }
        }
    }

    /**
     * A cascade's conditioning augmentation: Gaussian noise on each input derived with "noise", drawn from the example's
     * position in the epoch and the input's index (so any batch size and device count draws the same).
     */
    private void addDerivedNoise(float[][] values, int n, long seed, int stageIndex, int epoch, int from) {
        for (int k = 0; k < values.length; k++) {
            double std = data.inputs().get(k).noise();
            if (std <= 0) {
                continue;
            }
            int d = data.inputs().get(k).shape().values();
            for (int i = 0; i < n; i++) {
                SplittableRandom r = new SplittableRandom(mix(seed, stageIndex, epoch, from + i) ^ (DERIVE_DRAW + k));
                for (int j = i * d; j < (i + 1) * d; j++) {
                    values[k][j] += (float) (gaussian(r) * std);
                }
            }
        }
    }

    private static double gaussian(SplittableRandom r) {
        double u = 1 - r.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.nextDouble());
    }

    private static final long DIFFUSION_DRAW = 0x646966667573696FL;

    private static final long DERIVE_DRAW = 0x6465726976656400L;

    private static long mix(long seed, int stage, int epoch, int batch) {
        long h = seed * 0x9E3779B97F4A7C15L;
        h = (h ^ stage) * 0xBF58476D1CE4E5B9L;
        h = (h ^ epoch) * 0x94D049BB133111EBL;
        h = (h ^ batch) * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 31);
    }
}
