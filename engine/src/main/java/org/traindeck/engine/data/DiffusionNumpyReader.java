package org.traindeck.engine.data;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.config.DeriveConfig;
import org.traindeck.engine.config.DiffusionConfig;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.data.numpy.NpyArray;

/**
 * Reads a numpy source of task diffusion: the targets are the clean samples (vectors, images or volumes, scaled as
 * inputs are), the named inputs, if any, the conditioning. The dataset's inputs are the noised sample ({@code noisy},
 * of the samples' shape; it holds the clean sample until a batch noises it), the timestep (one value) and the
 * conditioning, then the inputs derived from the clean samples (a cascade's low-resolution view), in that order.
 */
final class DiffusionNumpyReader {

    private DiffusionNumpyReader() {}

    static Dataset read(NumpySource c, String at, Dataset training, NumpyFiles files) {
        if (c.targets() == null) {
            throw new InvalidConfigException(
                    at + ".targets", "is required for diffusion: the clean samples the model learns to generate");
        }
        String targetsAt = at + ".targets";
        NpyArray y = NumpyReader.open(files, c.targets(), targetsAt);
        NumpyReader.requireValues(y, targetsAt);
        NumpyReader.checkFinite(y, targetsAt);
        long n = y.sampleCount();
        if (n > Integer.MAX_VALUE && c.limit() == 0) {
            throw new InvalidConfigException(
                    targetsAt, y.source() + " holds " + n + " samples; at most " + Integer.MAX_VALUE);
        }
        int count = (int) Math.min(c.limit() > 0 ? c.limit() : n, n);
        SampleShape shape = NumpyReader.shapeOf(y, c, targetsAt);
        if (shape instanceof SampleShape.Tokens || shape instanceof SampleShape.Steps) {
            throw new InvalidConfigException(
                    targetsAt,
                    "diffusion samples are vectors [N, k], images [N, H, W, C] or volumes [N, D, H, W, C], but "
                            + y.source() + " is " + y.describe());
        }
        boolean picture = shape instanceof SampleShape.Image || shape instanceof SampleShape.Volume;
        SampleArray samples = new NpySamples(
                y,
                count,
                shape.values(),
                c.channelsLast() ? NumpyReader.channels(shape) : 0,
                picture ? (float) c.scale() : 1f);
        List<InputArray> inputs = new ArrayList<>();
        inputs.add(new InputArray(DiffusionConfig.NOISY, samples, shape, 0));
        inputs.add(new InputArray(
                DiffusionConfig.TIMESTEP, new FloatSamples(new float[count], 1), new SampleShape.Flat(1), 0));
        int k = 2;
        for (Map.Entry<String, String> e : c.inputs().byName().entrySet()) {
            String path = at + ".inputs." + e.getKey();
            NpyArray x = NumpyReader.open(files, e.getValue(), path);
            NumpyReader.requireValues(x, path);
            NamedNumpyReader.sameCount(x, path, n, y);
            inputs.add(NamedNumpyReader.input(e.getKey(), x, path, c, -1, count, training, k++));
        }
        for (Map.Entry<String, DeriveConfig> e : c.derive().entrySet()) {
            DeriveConfig d = e.getValue();
            String misfit = Downsampling.misfit(shape, d.downsample());
            if (misfit != null) {
                throw new InvalidConfigException(at + ".derive." + e.getKey() + ".downsample", misfit);
            }
            DerivedSamples derived = new DerivedSamples(samples, shape, d.downsample(), d.upsample());
            inputs.add(new InputArray(e.getKey(), derived, derived.shape(), 0, d.noise()));
        }
        // a view that does not fit its volume is refused when the data is first read, before any training
        ViewProjection.of(c.diffusion(), inputs, shape, at);
        int channels = NumpyReader.channels(shape);
        return Dataset.diffusion(inputs, samples, channels == 0 ? shape.values() : channels, c.diffusion());
    }
}
