package org.traindeck.engine.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.numpy.NpyArray;

/**
 * Reads a numpy source of several named inputs: every array one sample per target, each checked where the config
 * names it. With per-step targets ({@code sequence}, [N, T] class ids) an input of [N, T] whole numbers is token ids,
 * [N, T] real values one value per step, [N, T, k] k values per step; any other input is read by its rank (a vector
 * per sample, an image, a volume). {@code scale} applies to image and volume inputs only.
 */
final class NamedNumpyReader {

    private NamedNumpyReader() {}

    static Dataset read(NumpySource c, String at, Dataset training, NumpyFiles files) {
        Task task = c.task();
        NpyArray y = c.targets() == null ? null : NumpyReader.open(files, c.targets(), at + ".targets");
        if (task == Task.RECONSTRUCTION && y != null) {
            throw new InvalidConfigException(
                    at + ".targets", "a reconstruction's target is its first input: leave \"targets\" out");
        }
        if (task != Task.RECONSTRUCTION && y == null) {
            throw new InvalidConfigException(
                    at + ".targets",
                    "is required for " + task.json + " with named inputs"
                            + (task == Task.SEQUENCE ? " (a class id per step, [N, T])" : ""));
        }
        List<NpyArray> arrays = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        for (Map.Entry<String, String> e : c.inputs().byName().entrySet()) {
            String path = at + ".inputs." + e.getKey();
            NpyArray x = NumpyReader.open(files, e.getValue(), path);
            NumpyReader.requireValues(x, path);
            arrays.add(x);
            paths.add(path);
        }
        long n = arrays.get(0).sampleCount();
        for (int k = 1; k < arrays.size(); k++) {
            sameCount(arrays.get(k), paths.get(k), n, arrays.get(0));
        }
        if (y != null) {
            NumpyReader.requireValues(y, at + ".targets");
            sameCount(y, at + ".targets", n, arrays.get(0));
        }
        if (n > Integer.MAX_VALUE && c.limit() == 0) {
            throw new InvalidConfigException(
                    paths.get(0), arrays.get(0).source() + " holds " + n + " samples; at most " + Integer.MAX_VALUE);
        }
        int count = (int) Math.min(c.limit() > 0 ? c.limit() : n, n);
        long steps = task == Task.SEQUENCE
                ? stepsOf(y, at)
                : task == Task.REGRESSION && y.shape().length == 3 ? y.shape()[1] : -1;
        List<InputArray> inputs = new ArrayList<>();
        int k = 0;
        for (String name : c.inputs().names()) {
            inputs.add(input(name, arrays.get(k), paths.get(k), c, steps, count, training, k));
            k++;
        }
        return targets(inputs, y, c, at, count, training, files);
    }

    /**
     * The inputs alone, for a model trained on {@code c} that expects {@code expected} (prediction): each array named
     * by {@code specs} read as training read its data, and held to the shape the model was trained on.
     */
    static List<InputArray> inputsOnly(
            NumpySource c, Map<String, String> specs, List<InputSignature> expected, NumpyFiles files) {
        long steps = -1;
        for (InputSignature in : expected) {
            if (in.shape() instanceof SampleShape.Tokens t) {
                steps = t.length();
            } else if (in.shape() instanceof SampleShape.Steps s) {
                steps = s.length();
            }
        }
        List<InputArray> out = new ArrayList<>();
        long n = -1;
        NpyArray first = null;
        for (InputSignature want : expected) {
            String spec = specs.get(want.name());
            String path = want.name();
            NpyArray x = NumpyReader.open(files, spec, path);
            NumpyReader.requireValues(x, path);
            if (first == null) {
                first = x;
                n = x.sampleCount();
            } else {
                sameCount(x, path, n, first);
            }
            InputArray in = input(want.name(), x, path, c, steps, (int) Math.min(n, Integer.MAX_VALUE), null, 0);
            if (!in.shape().equals(want.shape())) {
                throw new InvalidConfigException(
                        path,
                        x.source() + " gives samples of " + in.shape() + " (" + x.describe() + "), but the model was"
                                + " trained on " + want.shape() + " for this input");
            }
            if (in.tokens() && in.vocabulary() > want.vocabulary()) {
                throw new InvalidConfigException(
                        path,
                        x.source() + " holds token ids up to " + (in.vocabulary() - 1) + ", beyond the "
                                + (want.vocabulary() - 1) + " the model was trained on");
            }
            out.add(new InputArray(want.name(), in.samples(), in.shape(), want.vocabulary()));
        }
        return out;
    }

    private static Dataset targets(
            List<InputArray> inputs,
            NpyArray y,
            NumpySource c,
            String at,
            int count,
            Dataset training,
            NumpyFiles files) {
        Task task = c.task();
        SampleShape first = inputs.get(0).shape();
        switch (task) {
            case RECONSTRUCTION -> {
                int channels = NumpyReader.channels(first);
                return Dataset.named(inputs, task, null, null, channels == 0 ? first.values() : channels);
            }
            case REGRESSION -> {
                NumpyReader.checkFinite(y, at + ".targets");
                long[] ys = y.shape();
                if (ys.length == 3) {
                    // values at each step, [T, k] per sample as stored; the network's outputs are [k, T]
                    int steps = Math.toIntExact(ys[1]);
                    int values = Math.toIntExact(ys[2]);
                    SampleArray mask = c.targetMask() == null ? null : mask(c, at, y, count, files);
                    return Dataset.named(
                            inputs, task, new NpySamples(y, count, steps * values, values, 1f), mask, values);
                }
                int values = ys.length == 1 ? 1 : ys.length == 2 ? Math.toIntExact(ys[1]) : -1;
                if (values < 1) {
                    throw new InvalidConfigException(
                            at + ".targets",
                            "regression targets are [N] or [N, k] values, or [N, T, k] values at each step, but "
                                    + y.source() + " is " + Arrays.toString(ys));
                }
                return Dataset.named(inputs, task, new NpySamples(y, count, values, 0, 1f), null, values);
            }
            case SEQUENCE -> {
                int steps = Math.toIntExact(y.shape()[1]);
                int classes = NumpyReader.classes(y, c, at, training);
                SampleArray mask = c.targetMask() == null ? null : mask(c, at, y, count, files);
                return Dataset.named(inputs, task, new NpySamples(y, count, steps, 0, 1f), mask, classes);
            }
            default -> {
                int positions = task == Task.SEGMENTATION
                        ? NumpyReader.maskPositions(y, first, c, at)
                        : NumpyReader.classPositions(y, at);
                int classes = NumpyReader.classes(y, c, at, training);
                return Dataset.named(inputs, task, new NpySamples(y, count, positions, 0, 1f), null, classes);
            }
        }
    }

    static InputArray input(
            String name, NpyArray x, String path, NumpySource c, long steps, int count, Dataset training, int index) {
        long[] s = x.shape();
        NumpyReader.checkFinite(x, path);
        if (steps > 0 && s.length >= 2 && s[1] == steps && s.length <= 3) {
            if (s.length == 2 && x.dtype().isIntegral()) {
                int vocabulary = vocabulary(x, path, training, index);
                return new InputArray(
                        name,
                        new NpySamples(x, count, (int) steps, 0, 1f),
                        new SampleShape.Tokens((int) steps),
                        vocabulary);
            }
            int features = s.length == 2 ? 1 : Math.toIntExact(s[2]);
            // [T, k] per sample as stored; the network takes [k, T]
            return new InputArray(
                    name,
                    new NpySamples(x, count, features * (int) steps, features, 1f),
                    new SampleShape.Steps(features, (int) steps),
                    0);
        }
        SampleShape shape = NumpyReader.shapeOf(x, c, path);
        boolean picture = shape instanceof SampleShape.Image || shape instanceof SampleShape.Volume;
        return new InputArray(
                name,
                new NpySamples(
                        x,
                        count,
                        shape.values(),
                        c.channelsLast() ? NumpyReader.channels(shape) : 0,
                        picture ? (float) c.scale() : 1f),
                shape,
                0);
    }

    /** The ids' range: the training data's for validation data (an id beyond it is refused), else the largest + 1. */
    private static int vocabulary(NpyArray x, String path, Dataset training, int index) {
        long[] range = x.minMaxLong();
        int vocabulary = training != null
                ? training.inputs().get(index).vocabulary()
                : (int) Math.max(2, Math.min(range[1] + 1, Integer.MAX_VALUE));
        if (range[0] < 0 || range[1] >= vocabulary) {
            long[] at = x.firstOutside(0, vocabulary - 1);
            throw new InvalidConfigException(
                    path,
                    x.source() + " holds the token id " + (range[0] < 0 ? range[0] : range[1]) + " (first at sample "
                            + at[0] + ", index " + Arrays.toString(at) + "), outside 0.." + (vocabulary - 1)
                            + (training != null ? " (the training data's ids)" : ""));
        }
        if (vocabulary > 1_000_000) {
            throw new InvalidConfigException(
                    path, x.source() + " holds token ids up to " + range[1] + "; at most 1,000,000 distinct ids embed");
        }
        return vocabulary;
    }

    private static long stepsOf(NpyArray y, String at) {
        long[] s = y.shape();
        if (s.length != 2 || !y.dtype().isIntegral()) {
            throw new InvalidConfigException(
                    at + ".targets",
                    "per-step targets are a class id per step, [N, T] whole numbers, but " + y.source() + " is "
                            + y.describe());
        }
        return s[1];
    }

    private static SampleArray mask(NumpySource c, String at, NpyArray y, int count, NumpyFiles files) {
        NpyArray m = NumpyReader.open(files, c.targetMask(), at + ".targetMask");
        long[] perStep = Arrays.copyOf(y.shape(), 2);
        if (!Arrays.equals(m.shape(), perStep)) {
            throw new InvalidConfigException(
                    at + ".targetMask",
                    "has a 1 or 0 for each step of the targets, so it is " + Arrays.toString(perStep) + " like the"
                            + " targets' first two axes, but " + m.source() + " is " + Arrays.toString(m.shape()));
        }
        NumpyReader.checkFinite(m, at + ".targetMask");
        int steps = Math.toIntExact(y.shape()[1]);
        float[] row = new float[steps];
        for (int i = 0; i < count; i++) {
            m.readSample(i, row, 0);
            for (int t = 0; t < steps; t++) {
                if (row[t] != 0f && row[t] != 1f) {
                    throw new InvalidConfigException(
                            at + ".targetMask",
                            m.source() + " holds " + row[t] + " at sample " + i + ", step " + t
                                    + ": 1 marks a step that counts, 0 padding");
                }
            }
        }
        return new NpySamples(m, count, steps, 0, 1f);
    }

    static void sameCount(NpyArray a, String path, long n, NpyArray first) {
        if (a.sampleCount() != n) {
            throw new InvalidConfigException(
                    path,
                    a.source() + " holds " + a.sampleCount() + " samples but " + first.source() + " holds " + n
                            + ": every input and the targets have one entry per sample");
        }
    }
}
