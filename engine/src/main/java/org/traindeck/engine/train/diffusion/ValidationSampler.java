package org.traindeck.engine.train.diffusion;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.DiffusionSampling;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.InputArray;
import org.traindeck.engine.data.ViewProjection;
import org.traindeck.engine.events.MetricNames;

/**
 * Validation's samples of a diffusion model: the first {@code count} validation examples generated from their own
 * conditioning with the run's seed (the same starting noise at every epoch, so epochs compare), and scored against
 * their true samples ({@link SampleScores}).
 */
public final class ValidationSampler {

    /** Values generated at once: a few volumes, many small images. */
    private static final int VALUES_PER_BATCH = 1 << 18;

    /**
     * What one sampling made.
     *
     * @param samples the n generated samples, channels first, in the dataset's units
     * @param truth   the n true samples, the same way
     * @param metrics val/psnr, and val/projection_error with projections
     */
    public record Generated(int count, float[] samples, float[] truth, Map<String, Double> metrics) {}

    private ValidationSampler() {}

    /**
     * @param c       the diffusion options that say how to sample, and the views to compare with
     * @param stopped asked between batches: true ends the sampling with null
     * @return the samples and their scores, or null when stopped
     */
    public static Generated generate(
            DiffusionSampler.Denoiser net,
            Dataset validation,
            DiffusionConfig c,
            long seed,
            DataType dataType,
            BooleanSupplier stopped) {
        DiffusionSampling s = c.sampling();
        int n = Math.min(s.count(), validation.size());
        int d = validation.shape().values();
        int batch = Math.max(1, Math.min(n, VALUES_PER_BATCH / d));
        DiffusionSampler sampler = new DiffusionSampler(c);
        List<InputArray> conditioning =
                validation.inputs().subList(2, validation.inputs().size());
        float[] samples = new float[n * d];
        for (int from = 0; from < n; from += batch) {
            if (stopped.getAsBoolean()) {
                return null;
            }
            int size = Math.min(batch, n - from);
            float[] x = sampler.sample(
                    inputs -> net.output(cast(inputs, dataType)),
                    validation.shape().batchShape(size),
                    conditioningOf(validation, conditioning, from, size),
                    s.steps(),
                    s.ddim(),
                    seed,
                    from);
            System.arraycopy(x, 0, samples, from * d, size * d);
        }
        float[] truth = new float[n * d];
        for (int i = 0; i < n; i++) {
            validation.copyTargets(i, truth, i * d);
        }
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put(MetricNames.VAL_PSNR, SampleScores.psnr(samples, truth, 0, n * d));
        List<ViewProjection> projections =
                ViewProjection.of(c, validation.inputs(), validation.shape(), "data.validation");
        if (!projections.isEmpty()) {
            metrics.put(
                    MetricNames.VAL_PROJECTION_ERROR,
                    SampleScores.projectionError(projections, validation, samples, n));
        }
        return new Generated(n, samples, truth, metrics);
    }

    private static INDArray[] conditioningOf(Dataset data, List<InputArray> conditioning, int from, int size) {
        INDArray[] out = new INDArray[conditioning.size()];
        for (int k = 0; k < out.length; k++) {
            InputArray in = conditioning.get(k);
            int values = in.shape().values();
            float[] v = new float[size * values];
            for (int i = 0; i < size; i++) {
                data.copyInput(k + 2, from + i, v, i * values);
            }
            out[k] = Nd4j.create(v, in.shape().batchShape(size), DataType.FLOAT);
        }
        return out;
    }

    private static INDArray[] cast(INDArray[] inputs, DataType dataType) {
        if (dataType == DataType.FLOAT) {
            return inputs;
        }
        INDArray[] out = new INDArray[inputs.length];
        for (int k = 0; k < inputs.length; k++) {
            out[k] = inputs[k].castTo(dataType);
        }
        return out;
    }
}
