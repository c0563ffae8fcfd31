package org.traindeck.engine.data;

import java.io.IOException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.IdxSource;
import org.traindeck.engine.config.ImageFolderSource;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.MaskFoldersSource;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.TextSource;

/**
 * Turns a {@link DataConfig} into training and validation {@link Dataset}s. A data problem (unreadable file, wrong
 * column count, mismatched shapes) becomes an {@link InvalidConfigException} naming the config path to fix.
 */
public final class DataLoader {

    /** Training data and (possibly null) validation data, with the files they read from kept open until closed. */
    public record Loaded(Dataset train, Dataset validation, AutoCloseable files) implements AutoCloseable {
        public Loaded(Dataset train, Dataset validation) {
            this(train, validation, () -> {});
        }

        @Override
        public void close() {
            try {
                files.close();
            } catch (Exception e) {
                // read-only files: nothing of the user's is lost
            }
        }
    }

    private DataLoader() {}

    /**
     * @param jsonPath where this data is in the config ("data" or "stages[1].data"), for messages
     */
    public static Loaded load(RunConfig run, DataConfig data, String jsonPath) {
        NumpyFiles files = new NumpyFiles(run.baseDir());
        try {
            return load(run, data, jsonPath, files);
        } catch (RuntimeException e) {
            files.close();
            throw e;
        }
    }

    /**
     * A test source read as a validation source is: against the run's training data (its classes, vocabulary and
     * shape) and normalised with the normaliser fitted on the training split. The returned {@code validation()} is
     * the test data.
     *
     * @param at where the test source is named, for messages ("data.test", or "--data")
     */
    public static Loaded loadTest(RunConfig run, DataConfig data, SourceConfig test, String at) {
        NumpyFiles files = new NumpyFiles(run.baseDir());
        try {
            Loaded training = load(
                    run,
                    new DataConfig(data.train(), null, data.validationSplit(), data.shuffle()),
                    "data",
                    files,
                    false);
            Dataset tested = read(run, test, at, training.train(), 2, files);
            String mismatch = training.train().incompatibilityWith(tested);
            if (mismatch != null) {
                throw new InvalidConfigException(
                        at, "does not match the data the model was trained on: it has " + mismatch);
            }
            if (data.train().normalize() != SourceConfig.Normalize.NONE) {
                tested = Normalizer.fit(data.train().normalize(), training.train())
                        .apply(tested);
            }
            return new Loaded(training.train(), tested, files);
        } catch (RuntimeException e) {
            files.close();
            throw e;
        }
    }

    private static Loaded load(RunConfig run, DataConfig data, String jsonPath, NumpyFiles files) {
        return load(run, data, jsonPath, files, true);
    }

    /** @param normalize false: the training split as read, for fitting a test source's normaliser */
    private static Loaded load(RunConfig run, DataConfig data, String jsonPath, NumpyFiles files, boolean normalize) {
        Dataset train = read(run, data.train(), jsonPath + ".train", null, 0, files);
        if (train.task() == Task.CLASSIFICATION && distinctClasses(train) < 2) {
            throw new InvalidConfigException(
                    jsonPath + ".train",
                    "holds a single class (" + train.size()
                            + " samples): classification needs at least two (is \"labelColumn\" the right column?)");
        }
        Dataset validation = null;
        if (data.validation() != null) {
            validation = read(run, data.validation(), jsonPath + ".validation", train, 1, files);
            String mismatch = train.incompatibilityWith(validation);
            if (mismatch != null) {
                throw new InvalidConfigException(
                        jsonPath + ".validation", "does not match the training data: it has " + mismatch);
            }
        } else if (data.validationSplit() > 0) {
            int held = (int) Math.round(train.size() * data.validationSplit());
            if (held < 1 || held >= train.size()) {
                throw new InvalidConfigException(
                        jsonPath + ".validationSplit",
                        "leaves " + held + " of " + train.size()
                                + " samples for validation: use a larger split or more data");
            }
            // windows of one text overlap their neighbours: a random split would validate on training text
            int[] order = train.task() == Task.SEQUENCE
                    ? identity(train.size())
                    : permutation(train.size(), new SplittableRandom(run.seed() ^ 0x5EED5EEDL));
            int[] trainIdx = train.task() == Task.SEQUENCE
                    ? Arrays.copyOfRange(order, 0, order.length - held)
                    : Arrays.copyOfRange(order, held, order.length);
            int[] valIdx = train.task() == Task.SEQUENCE
                    ? Arrays.copyOfRange(order, order.length - held, order.length)
                    : Arrays.copyOfRange(order, 0, held);
            Arrays.sort(trainIdx);
            Arrays.sort(valIdx);
            validation = train.subset(valIdx);
            train = train.subset(trainIdx);
        }
        if (normalize && data.train().normalize() != SourceConfig.Normalize.NONE) {
            Normalizer normalizer = Normalizer.fit(data.train().normalize(), train);
            train = normalizer.apply(train);
            validation = validation == null ? null : normalizer.apply(validation);
        }
        return new Loaded(train, validation, files);
    }

    /**
     * The scaling a run's training applies to its inputs (a CSV source's {@code normalize}), fitted on the same
     * training rows as training fits it, for new inputs to get the same; null when the inputs are not normalised.
     */
    public static Normalizer trainingNormalizer(RunConfig run, DataConfig data, String jsonPath) {
        if (data.train().normalize() == SourceConfig.Normalize.NONE) {
            return null;
        }
        try (Loaded training = load(run, data, jsonPath, new NumpyFiles(run.baseDir()), false)) {
            return Normalizer.fit(data.train().normalize(), training.train());
        }
    }

    private static Dataset read(
            RunConfig run, SourceConfig source, String at, Dataset training, int role, NumpyFiles files) {
        List<String> classNames = training == null ? null : training.classNames();
        return source.accept(new SourceConfig.Visitor<>() {
            @Override
            public Dataset idx(IdxSource s) {
                return located(at + ".path", () -> IdxReader.read(run.resolve(s.path()), s.split(), s.limit()));
            }

            @Override
            public Dataset csv(CsvSource s) {
                return located(at + ".path", () -> CsvReader.read(run.resolve(s.path()), s, classNames));
            }

            @Override
            public Dataset images(ImageFolderSource s) {
                return located(
                        at + ".path",
                        () -> ImageFolderReader.read(
                                run.resolve(s.path()), s.width(), s.height(), s.channels(), s.limit(), classNames));
            }

            @Override
            public Dataset masks(MaskFoldersSource s) {
                return MaskFolderReader.read(run.baseDir(), s, at);
            }

            @Override
            public Dataset synthetic(SyntheticSource s) {
                return located(at, () -> SyntheticData.generate(s, run.seed(), run.seed() * 31 + role + 1));
            }

            @Override
            public Dataset text(TextSource s) {
                return located(
                        at + ".path",
                        () -> TextReader.read(
                                run.resolve(s.path()),
                                s.context(),
                                s.strideOrContext(),
                                s.limit(),
                                training == null ? null : training.vocabulary()));
            }

            @Override
            public Dataset numpy(NumpySource s) {
                return NumpyReader.read(run.baseDir(), s, at, training, files);
            }
        });
    }

    private interface Read {
        Dataset get() throws IOException;
    }

    /** The read's failure as a problem of the config at {@code path}. */
    private static Dataset located(String path, Read read) {
        try {
            return read.get();
        } catch (IOException | RuntimeException e) {
            throw new InvalidConfigException(path, e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    private static int distinctClasses(Dataset d) {
        BitSet seen = new BitSet(d.numClasses());
        for (int i = 0; i < d.size(); i++) {
            seen.set(d.classOf(i));
        }
        return seen.cardinality();
    }

    private static int[] identity(int n) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        return order;
    }

    /** A uniformly random permutation of 0..n-1 (Fisher-Yates). */
    public static int[] permutation(int n, SplittableRandom random) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }
}
