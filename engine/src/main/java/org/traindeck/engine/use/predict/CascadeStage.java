package org.traindeck.engine.use.predict;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.config.DeriveConfig;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.data.Downsampling;
import org.traindeck.engine.data.FloatSamples;
import org.traindeck.engine.data.InputArray;
import org.traindeck.engine.data.InputSignature;
import org.traindeck.engine.data.NamedInputFiles;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.outputs.PredictionInputException;
import org.traindeck.engine.train.diffusion.DiffusionSampler;

/**
 * One network of a cascade at prediction: its derived inputs made from the samples of the network below (the derive's
 * transform without noise), its other conditioning read from the request's files, and the samples it generates.
 */
final class CascadeStage {

    private final String name;
    private final int index;
    private final PredictionModel model;
    private final NumpySource source;
    private float[] samples;
    private int count;

    CascadeStage(String name, int index, PredictionModel model, NumpySource source) {
        this.name = name;
        this.index = index;
        this.model = model;
        this.source = source;
    }

    String name() {
        return name;
    }

    NumpySource source() {
        return source;
    }

    /** One generated sample's shape (channels first). */
    SampleShape shape() {
        return model.named().get(0).shape();
    }

    float[] samples() {
        return samples;
    }

    int count() {
        return count;
    }

    /** Generates this network's samples, one per sample of {@code below} (or of the inputs, or --count for the first). */
    void sample(CascadeStage below, List<Path> inputs, Generation g, DiffusionSampler sampler) {
        List<InputSignature> conditioning =
                model.named().subList(2, model.named().size());
        List<InputSignature> fromFiles = conditioning.stream()
                .filter(s -> !source.derive().containsKey(s.name()))
                .toList();
        String at = "stages[" + index + "].data.train.derive";
        if (below != null && source.derive().isEmpty()) {
            throw new PredictionInputException(at + ": stage " + name + " derives no input from its targets, so the"
                    + " samples of stage " + below.name() + " below it have nowhere to go: a cascade's upper stage"
                    + " reads them as a derived input (\"derive\": {\"lowres\": {\"downsample\": 2}})");
        }
        if (fromFiles.isEmpty()) {
            count = below != null ? below.count : requireCount(g, inputs);
            samples =
                    DiffusionPrediction.generate(model, sampler, g, shape(), derived(conditioning, below, null), count);
            return;
        }
        if (inputs.isEmpty()) {
            throw new PredictionInputException("stage " + name + " is conditioned on "
                    + String.join(
                            ", ", fromFiles.stream().map(InputSignature::name).toList())
                    + ": give one .npz holding an array of each name, or one NAME.npy per input");
        }
        Map<String, String> specs = NamedInputsPrediction.specs(fromFiles, inputs);
        try (NamedInputFiles files = NamedInputFiles.open(Path.of("").toAbsolutePath(), source, specs, fromFiles)) {
            count = files.size();
            if (below != null && below.count != count) {
                throw new PredictionInputException("stage " + name + "'s inputs hold " + count + " examples, but stage "
                        + below.name() + " generated " + below.count + ": give one example of each input per sample");
            }
            samples = DiffusionPrediction.generate(
                    model, sampler, g, shape(), derived(conditioning, below, files.inputs()), count);
        } catch (InvalidConfigException e) {
            throw new PredictionInputException(e.getMessage(), e);
        }
    }

    private int requireCount(Generation g, List<Path> inputs) {
        if (!inputs.isEmpty() || g.count() < 1) {
            throw new PredictionInputException("stage " + name
                    + " is unconditional and takes no inputs: give --count N, the samples the cascade generates");
        }
        return g.count();
    }

    /** The conditioning in the graph's order: derived ones from {@code below}'s samples, the others from the files. */
    private List<InputArray> derived(List<InputSignature> conditioning, CascadeStage below, List<InputArray> files) {
        List<InputArray> out = new ArrayList<>();
        int file = 0;
        for (InputSignature s : conditioning) {
            DeriveConfig d = source.derive().get(s.name());
            if (d == null) {
                out.add(files.get(file++));
            } else {
                out.add(new InputArray(
                        s.name(),
                        new FloatSamples(
                                fromBelow(s.name(), d, below), s.shape().values()),
                        s.shape(),
                        0));
            }
        }
        return out;
    }

    /** The samples below as this network's derived input {@code input}: rescaled to its units, upsampled if it was. */
    private float[] fromBelow(String input, DeriveConfig d, CascadeStage below) {
        SampleShape target = shape();
        SampleShape low = Downsampling.misfit(target, d.downsample()) == null
                ? Downsampling.pooled(target, d.downsample())
                : null;
        if (low == null || !low.equals(below.shape())) {
            throw new PredictionInputException("stages[" + index + "].data.train.derive." + input + ": stage " + name
                    + " reads its " + target + " targets pooled by " + d.downsample() + " (" + low + "), but stage "
                    + below.name() + " below it generates " + below.shape() + ": the stage below must generate the"
                    + " pooled size");
        }
        float units = (float) (source.scale() / below.source.scale());
        int lowValues = low.values();
        int length = d.upsample() ? target.values() : lowValues;
        float[] out = new float[count * length];
        float[] one = new float[lowValues];
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < lowValues; j++) {
                one[j] = below.samples[i * lowValues + j] * units;
            }
            if (d.upsample()) {
                Downsampling.upsample(one, 0, target, d.downsample(), out, i * length);
            } else {
                System.arraycopy(one, 0, out, i * length, lowValues);
            }
        }
        return out;
    }
}
