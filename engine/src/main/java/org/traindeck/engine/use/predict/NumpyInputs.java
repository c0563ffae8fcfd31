package org.traindeck.engine.use.predict;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.IdxSource;
import org.traindeck.engine.config.ImageFolderSource;
import org.traindeck.engine.config.MaskFoldersSource;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.TextSource;
import org.traindeck.engine.data.NpySamples;
import org.traindeck.engine.data.SampleShape;
import org.traindeck.engine.data.numpy.NonFinite;
import org.traindeck.engine.data.numpy.NpyArray;
import org.traindeck.engine.data.numpy.NpyDType;
import org.traindeck.engine.data.numpy.NpzArchive;
import org.traindeck.engine.outputs.PredictionInputException;

/**
 * Reads NumPy inputs for a model ({@code x.npy}, {@code data.npz} holding one array, or {@code data.npz:x}) with
 * TrainDeck's own reader (never a pickle), one sample per row, and converts them as training converted its data: a
 * numpy source's layout and scale, bytes of an image source to [0, 1], a CSV source's normalisation. A file of the
 * wrong shape or type, a NaN, or a token id outside the vocabulary is refused with the file and where.
 */
final class NumpyInputs {

    private NumpyInputs() {}

    static boolean isNumpy(Path input) {
        String name = input.getFileName() == null ? "" : input.getFileName().toString();
        return name.endsWith(".npy") || name.endsWith(".npz") || name.matches(".*\\.npz:[^/]+");
    }

    static InputRows read(List<Path> inputs, PredictionModel model, ArrayOptions options) throws IOException {
        Gathered gathered = new Gathered(model, options);
        for (Path input : inputs) {
            String spec = input.toString();
            int colon = spec.lastIndexOf(':');
            boolean member = colon > 0 && spec.substring(0, colon).endsWith(".npz");
            Path file = Path.of(member ? spec.substring(0, colon) : spec);
            if (!Files.isRegularFile(file)) {
                throw new PredictionInputException("no such file: " + file);
            }
            try {
                if (file.toString().endsWith(".npz")) {
                    try (NpzArchive archive = NpzArchive.open(file)) {
                        String name = member ? spec.substring(colon + 1) : only(archive, file);
                        if (!archive.names().contains(name)) {
                            throw new PredictionInputException(file + " has no array \"" + name + "\" (it has "
                                    + String.join(", ", archive.names()) + ")");
                        }
                        try (NpyArray array = archive.array(name)) {
                            gathered.add(array);
                        }
                    }
                } else {
                    try (NpyArray array = NpyArray.open(file)) {
                        gathered.add(array);
                    }
                }
            } catch (IOException e) {
                // the reader names the file and what is wrong with it (an object array, a truncated file, a bad header)
                throw new PredictionInputException(
                        e.getMessage() == null ? "cannot read " + file + ": " + e : e.getMessage(), e);
            }
        }
        return gathered.rows();
    }

    /** The files' rows so far, with the layout the first file that said one said, and the warnings. */
    private static final class Gathered {
        private final PredictionModel model;
        private final ArrayOptions options;
        private final List<float[]> parts = new ArrayList<>();
        private final List<String> names = new ArrayList<>();
        private final List<String> warnings = new ArrayList<>();
        private ArrayLayout layout;
        private String layoutFrom;
        private int total;

        Gathered(PredictionModel model, ArrayOptions options) {
            this.model = model;
            this.options = options;
        }

        /** Converts one array and adds its rows; every file that says a layout must say the same. */
        void add(NpyArray array) {
            ArrayLayout said = layoutOf(array, model, options.layout());
            if (said != null && layout != null && said != layout) {
                throw new PredictionInputException(array.source() + " holds its samples " + said.words() + ", but "
                        + layoutFrom + " holds them " + layout.words() + ": give every input in one layout");
            }
            if (said != null && layout == null) {
                layout = said;
                layoutFrom = array.source();
            }
            float[] values = convert(array, model, said, options.divideBy());
            String warning = InputRangeCheck.warning(array.source(), values, model, options.divideBy());
            if (warning != null) {
                warnings.add(warning);
            }
            long n = array.sampleCount();
            parts.add(values);
            for (long i = 0; i < n; i++) {
                names.add(array.source() + "[" + i + "]");
            }
            total = Math.addExact(total, Math.toIntExact(n));
        }

        InputRows rows() {
            float[] all = new float[Math.multiplyExact(total, model.shape().values())];
            int at = 0;
            for (float[] p : parts) {
                System.arraycopy(p, 0, all, at, p.length);
                at += p.length;
            }
            return new InputRows(all, total, names, layout, warnings);
        }
    }

    /** The layout the array's per-sample shape says (null where none), the shape checked first. */
    private static ArrayLayout layoutOf(NpyArray array, PredictionModel model, ArrayLayout given) {
        long[] s = array.shape();
        if (array.dtype() == NpyDType.BOOL) {
            throw new PredictionInputException(
                    array.source() + " holds booleans (" + array.describe() + "): the model takes numbers");
        }
        if (s.length == 0) {
            throw new PredictionInputException(array.source() + " is a single value: inputs are one sample per row, "
                    + InputForms.expected(model, given));
        }
        return InputForms.layoutOf(array, Arrays.copyOfRange(s, 1, s.length), model, given);
    }

    private static String only(NpzArchive archive, Path file) {
        if (archive.names().size() != 1) {
            throw new PredictionInputException(
                    file + " holds " + archive.names().size() + " arrays (" + String.join(", ", archive.names())
                            + "): name the one to predict on, as " + file + ":"
                            + (archive.names().isEmpty() ? "x" : archive.names().get(0)));
        }
        return archive.names().get(0);
    }

    /**
     * The array's samples as the model's values, every check first: stored in {@code layout} (null: in none), each
     * value divided by {@code divideBy} before training's own conversion.
     */
    static float[] convert(NpyArray array, PredictionModel model, ArrayLayout layout, double divideBy) {
        SampleShape shape = model.shape();
        long[] s = array.shape();
        if (array.sampleCount() == 0) {
            throw new PredictionInputException(array.source() + " is " + Arrays.toString(s) + ": it holds no samples");
        }
        int n = Math.toIntExact(array.sampleCount());
        int length = shape.values();
        if (shape instanceof SampleShape.Tokens) {
            if (!array.dtype().isIntegral()) {
                throw new PredictionInputException(
                        array.source() + " holds " + array.dtype().numpyName() + " values, but token ids are "
                                + "whole numbers: save it with .astype(np.int64)");
            }
            long[] outside = array.firstOutside(0, model.outputs() - 1);
            if (outside != null) {
                long[] row = new long[length];
                array.readSampleLongs(outside[0], row, 0);
                throw new PredictionInputException(array.source() + " holds the token id " + row[(int) outside[1]]
                        + " at sample " + outside[0] + ", index " + Arrays.toString(outside)
                        + ", outside the model's vocabulary 0.." + (model.outputs() - 1));
            }
        }
        NonFinite bad = array.dtype().isFloat() ? array.firstNonFinite() : null;
        if (bad != null) {
            throw new PredictionInputException(bad.describe()
                    + ": the model cannot predict on it; clean the input (np.nan_to_num, or drop " + "those samples)");
        }
        int channels = layout == ArrayLayout.CHANNELS_LAST ? channels(shape) : 0;
        float[] out = new float[Math.multiplyExact(n, length)];
        NpySamples samples =
                new NpySamples(array, n, length, channels, (float) (scale(model, array.dtype()) / divideBy));
        for (int i = 0; i < n; i++) {
            samples.read(i, out, i * length);
        }
        if (model.normalizer() != null) {
            model.normalizer().applyInPlace(out, 0, n);
        }
        return out;
    }

    /** What one raw value becomes: a numpy source's scale; a byte of an image source, as its reader scales it. */
    private static float scale(PredictionModel model, NpyDType dtype) {
        return model.source().accept(new SourceConfig.Visitor<>() {
            @Override
            public Float idx(IdxSource s) {
                return pixelBytes(s);
            }

            @Override
            public Float csv(CsvSource s) {
                return 1f;
            }

            @Override
            public Float images(ImageFolderSource s) {
                return pixelBytes(s);
            }

            @Override
            public Float masks(MaskFoldersSource s) {
                return pixelBytes(s);
            }

            @Override
            public Float synthetic(SyntheticSource s) {
                return 1f;
            }

            @Override
            public Float text(TextSource s) {
                return 1f;
            }

            @Override
            public Float numpy(NumpySource s) {
                return (float) s.scale(); // whatever the array's type, as training scaled it
            }

            /** Bytes are pixels, scaled as the source's reader scales them; other types are in the model's units. */
            private Float pixelBytes(SourceConfig s) {
                return dtype == NpyDType.UINT8 ? s.pixelScale() : 1f;
            }
        });
    }

    /** The per-sample shapes a file may have for this model in {@code layout} (and those of no layout). */
    static List<long[]> accepted(PredictionModel model, ArrayLayout layout) {
        return InputForms.of(model, layout).stream()
                .map(InputForms.Form::sample)
                .toList();
    }

    /** e.g. "[N, 28, 28, 1] or [N, 28, 28] or [N, 1, 28, 28] (N samples of 28×28×1, numbers; channels last or first)". */
    static String expected(PredictionModel model) {
        return InputForms.expected(model, null);
    }

    private static int channels(SampleShape shape) {
        return shape instanceof SampleShape.Image i
                ? i.channels()
                : shape instanceof SampleShape.Volume v ? v.channels() : 0;
    }
}
