package org.traindeck.engine.data;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.numpy.NonFinite;
import org.traindeck.engine.data.numpy.NpyArray;

/**
 * Reads a numpy source: checks every array before anything trains (a header against its file, object arrays never
 * unpickled, sample counts of inputs and targets, shapes against the task, class ids against the classes, NaN and
 * infinity with the first index) and maps the files, so a file larger than memory trains. Each problem is an
 * {@link InvalidConfigException} at the config key that names the file.
 */
final class NumpyReader {

    private NumpyReader() {}

    static Dataset read(Path baseDir, NumpySource c, String at, Dataset training, NumpyFiles files) {
        if (c.task() == Task.DIFFUSION) {
            return DiffusionNumpyReader.read(c, at, training, files);
        }
        if (c.inputs().named()) {
            return NamedNumpyReader.read(c, at, training, files);
        }
        NpyArray x = open(files, c.inputs().first(), at + ".inputs");
        NpyArray y = c.targets() == null ? null : open(files, c.targets(), at + ".targets");
        Task task = c.task();
        if (task == Task.SEQUENCE) {
            return tokens(x, y, c, at, training);
        }
        checkTargets(task, x, y, at);
        long n = x.sampleCount();
        requireValues(x, at + ".inputs");
        if (y != null) {
            requireValues(y, at + ".targets");
        }
        int count = (int) Math.min(c.limit() > 0 ? c.limit() : n, n);
        if (n > Integer.MAX_VALUE && c.limit() == 0) {
            throw new InvalidConfigException(
                    at + ".inputs", x.source() + " holds " + n + " samples; at most " + Integer.MAX_VALUE + " train");
        }
        SampleShape shape = shapeOf(x, c, at + ".inputs");
        checkFinite(x, at + ".inputs");
        SampleArray inputs =
                new NpySamples(x, count, shape.values(), c.channelsLast() ? channels(shape) : 0, (float) c.scale());
        if (task == Task.RECONSTRUCTION) {
            return Dataset.of(
                    inputs, shape, task, null, channels(shape) == 0 ? shape.values() : channels(shape), null, null);
        }
        long[] ys = y.shape();
        if (task == Task.REGRESSION) {
            checkFinite(y, at + ".targets");
            int k = ys.length == 1 ? 1 : ys.length == 2 ? Math.toIntExact(ys[1]) : -1;
            if (k < 1) {
                throw new InvalidConfigException(
                        at + ".targets",
                        "regression targets are [N] or [N, k] values, but " + y.source() + " is "
                                + Arrays.toString(ys));
            }
            return Dataset.of(inputs, shape, task, new NpySamples(y, count, k, 0, 1f), k, null, null);
        }
        int positions = task == Task.SEGMENTATION ? maskPositions(y, shape, c, at) : classPositions(y, at);
        int classes = classes(y, c, at, training);
        return Dataset.of(inputs, shape, task, new NpySamples(y, count, positions, 0, 1f), classes, null, null);
    }

    /** A reconstruction has no targets; every other task has one per input. */
    private static void checkTargets(Task task, NpyArray x, NpyArray y, String at) {
        if (task == Task.RECONSTRUCTION && y != null) {
            throw new InvalidConfigException(
                    at + ".targets", "a reconstruction's target is its input: leave \"targets\" out");
        }
        if (task != Task.RECONSTRUCTION && y == null) {
            throw new InvalidConfigException(
                    at + ".targets", "is required for " + task.json + " (the " + what(task) + ")");
        }
        long n = x.sampleCount();
        if (y != null && y.sampleCount() != n) {
            throw new InvalidConfigException(
                    at + ".targets",
                    y.source() + " holds " + y.sampleCount() + " samples but the inputs, " + x.source() + ", hold " + n
                            + ": they must have one target per input");
        }
    }

    private static Dataset tokens(NpyArray x, NpyArray y, NumpySource c, String at, Dataset training) {
        if (y != null) {
            throw new InvalidConfigException(
                    at + ".targets", "next-token prediction takes its targets from the inputs: leave \"targets\" out");
        }
        if (c.context() == null) {
            throw new InvalidConfigException(
                    at + ".context", "is required for a sequence: the tokens the model sees at once");
        }
        if (x.shape().length != 1 || !x.dtype().isIntegral()) {
            throw new InvalidConfigException(
                    at + ".inputs",
                    "a sequence's inputs are one stream of token ids, a one-dimensional integer " + "array, but "
                            + x.source() + " is " + x.describe());
        }
        int context = c.context();
        long windows = x.sampleCount() <= context ? 0 : (x.sampleCount() - 1) / context;
        if (windows < 1) {
            throw new InvalidConfigException(
                    at + ".inputs",
                    x.source() + " has " + x.sampleCount() + " tokens; it needs at least context + 1 = "
                            + (context + 1));
        }
        int count = (int) Math.min(c.limit() > 0 ? c.limit() : windows, Math.min(windows, Integer.MAX_VALUE));
        int vocabulary = classes(x, c, at.endsWith("inputs") ? at : at + ".inputs", training);
        return Dataset.of(
                new NpyTokenWindows(x, count, context, 0),
                new SampleShape.Tokens(context),
                Task.SEQUENCE,
                new NpyTokenWindows(x, count, context, 1),
                vocabulary,
                null,
                null);
    }

    /** A shape with a zero in it (no samples, or samples of no values) holds nothing to train on. */
    static void requireValues(NpyArray a, String at) {
        if (a.sampleCount() == 0 || a.sampleLength() == 0) {
            throw new InvalidConfigException(
                    at,
                    a.source() + " is " + Arrays.toString(a.shape()) + ": it holds no values"
                            + (a.sampleCount() == 0 ? " (no samples)" : " (each sample is empty)"));
        }
    }

    static NpyArray open(NumpyFiles files, String spec, String at) {
        try {
            return files.array(spec);
        } catch (IOException e) {
            throw new InvalidConfigException(at, e.getMessage());
        }
    }

    /** The inputs' per-sample shape: features, an image or a volume, channels where the layout says. */
    static SampleShape shapeOf(NpyArray x, NumpySource c, String at) {
        long[] s = x.shape();
        int[] d = new int[s.length];
        for (int i = 1; i < s.length; i++) {
            d[i] = Math.toIntExact(s[i]);
        }
        boolean last = c.channelsLast();
        return switch (s.length) {
            case 1 -> new SampleShape.Flat(1);
            case 2 -> new SampleShape.Flat(d[1]);
            case 3 -> new SampleShape.Image(1, d[1], d[2]);
            case 4 -> last ? new SampleShape.Image(d[3], d[1], d[2]) : new SampleShape.Image(d[1], d[2], d[3]);
            case 5 ->
                last ? new SampleShape.Volume(d[4], d[1], d[2], d[3]) : new SampleShape.Volume(d[1], d[2], d[3], d[4]);
            default ->
                throw new InvalidConfigException(
                        at,
                        x.source() + " is " + Arrays.toString(s) + ": inputs have 1 to 5 axes "
                                + "(samples, then features, an image or a volume)");
        };
    }

    static int channels(SampleShape shape) {
        if (shape instanceof SampleShape.Image i) {
            return i.channels();
        }
        if (shape instanceof SampleShape.Volume v) {
            return v.channels();
        }
        return 0;
    }

    /** A class id per sample: [N] or [N, 1]. */
    static int classPositions(NpyArray y, String at) {
        long[] s = y.shape();
        if (s.length > 2 || (s.length == 2 && s[1] != 1)) {
            throw new InvalidConfigException(
                    at + ".targets",
                    "classification targets are one class id per sample ([N]), but " + y.source() + " is "
                            + Arrays.toString(s) + (s.length == 2 ? ": one-hot rows? save y.argmax(axis=1)" : ""));
        }
        return 1;
    }

    /** A class id per pixel or voxel, matching the inputs' image or volume, with or without a channel axis of 1. */
    static int maskPositions(NpyArray y, SampleShape shape, NumpySource c, String at) {
        long[] s = y.shape();
        long[] spatial = shape instanceof SampleShape.Image i
                ? new long[] {i.height(), i.width()}
                : shape instanceof SampleShape.Volume v ? new long[] {v.depth(), v.height(), v.width()} : null;
        if (spatial == null) {
            throw new InvalidConfigException(at + ".inputs", "segmentation needs images or volumes as inputs");
        }
        long[] mask = Arrays.copyOfRange(s, 1, s.length);
        if (mask.length == spatial.length + 1) {
            int channelAxis = c.channelsLast() ? mask.length - 1 : 0;
            if (mask[channelAxis] == 1) {
                long[] squeezed = new long[spatial.length];
                for (int i = 0, j = 0; i < mask.length; i++) {
                    if (i != channelAxis) {
                        squeezed[j++] = mask[i];
                    }
                }
                mask = squeezed;
            }
        }
        if (!Arrays.equals(mask, spatial)) {
            throw new InvalidConfigException(
                    at + ".targets",
                    "a mask has a class id per pixel of its image: " + Arrays.toString(spatial) + " per sample, but "
                            + y.source() + " is " + Arrays.toString(s));
        }
        return Math.toIntExact(Arrays.stream(spatial).reduce(1, Math::multiplyExact));
    }

    /** The classes (or vocabulary): the config's or the largest id + 1, every id checked against it. */
    static int classes(NpyArray y, NumpySource c, String at, Dataset training) {
        String where = at.endsWith(".inputs") ? at : at + ".targets";
        if (!y.dtype().isIntegral()) {
            throw new InvalidConfigException(
                    where,
                    y.source() + " holds " + y.dtype().numpyName() + " values, but class ids are whole "
                            + "numbers: save it with .astype(np.int64)");
        }
        long[] range = y.minMaxLong();
        if (range == null) {
            throw new InvalidConfigException(where, y.source() + " is empty");
        }
        int classes = training != null
                ? training.outputCount()
                : c.numClasses() != null
                        ? c.numClasses()
                        : (int) Math.max(2, Math.min(range[1] + 1, Integer.MAX_VALUE));
        if (range[0] < 0 || range[1] >= classes) {
            long[] index = y.firstOutside(0, classes - 1);
            throw new InvalidConfigException(
                    where,
                    y.source() + " holds the class id " + valueAt(y, index) + " at sample " + index[0]
                            + ", index " + Arrays.toString(index) + ", outside 0.." + (classes - 1)
                            + (c.numClasses() != null
                                    ? " (numClasses is " + classes + ")"
                                    : training != null ? " (the training data's classes)" : ""));
        }
        return classes;
    }

    /** The value at a multi-index, read from its sample (C order within the sample). */
    private static long valueAt(NpyArray y, long[] index) {
        long[] sample = new long[Math.toIntExact(y.sampleLength())];
        y.readSampleLongs(index[0], sample, 0);
        long[] shape = y.shape();
        long offset = 0;
        for (int k = 1; k < index.length; k++) {
            offset = offset * shape[k] + index[k];
        }
        return sample[(int) offset];
    }

    static void checkFinite(NpyArray a, String at) {
        if (!a.dtype().isFloat()) {
            return;
        }
        NonFinite bad = a.firstNonFinite();
        if (bad != null) {
            throw new InvalidConfigException(
                    at, bad.describe() + ": clean the data (np.nan_to_num, or drop those samples) before training");
        }
    }

    private static String what(Task task) {
        return switch (task) {
            case CLASSIFICATION -> "class id of each sample";
            case REGRESSION -> "values to predict";
            case SEGMENTATION -> "class of each pixel or voxel";
            default -> "targets";
        };
    }
}
