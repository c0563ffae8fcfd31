package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.IdxSource;
import org.traindeck.engine.config.ImageFolderSource;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.MaskFoldersSource;
import org.traindeck.engine.config.NumpyInputs;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.TextSource;

/**
 * Reads a "data" section and its sources. Values and defaults come from the schema; what is written here is what a
 * schema cannot say: one of two keys, shapes, and whether the files are there.
 */
final class SourceReader {

    static final String FASHION_MNIST_HINT =
            "Fashion-MNIST ships in Debian's package dataset-fashion-mnist: install it with `sudo apt-get install dataset-fashion-mnist`";

    private final Problems problems;
    private final Path baseDir;
    private final boolean checkFiles;

    SourceReader(Problems problems, Path baseDir) {
        this(problems, baseDir, true);
    }

    /** @param checkFiles false: the data files need not be there (a stored config, for using its trained model) */
    SourceReader(Problems problems, Path baseDir, boolean checkFiles) {
        this.problems = problems;
        this.baseDir = baseDir;
        this.checkFiles = checkFiles;
    }

    DataConfig readData(JsonObjectReader r) {
        return RecordReader.read(
                r,
                DataConfig.class,
                Map.of(
                        "train",
                                soFar -> {
                                    JsonObjectReader train = r.requiredObject("train");
                                    return train == null ? null : readSource(train);
                                },
                        "validation",
                                soFar -> {
                                    JsonObjectReader validation = r.object("validation");
                                    return validation == null ? null : readSource(validation);
                                },
                        "test",
                                soFar -> {
                                    JsonObjectReader test = r.object("test");
                                    return test == null ? null : readSource(test);
                                },
                        "validationSplit",
                                soFar -> {
                                    Double split = r.number("validationSplit");
                                    if (soFar.get("validation") != null && split != null && split > 0) {
                                        problems.error(
                                                r.pathOf("validationSplit"),
                                                "give either \"validation\" (a source) or \"validationSplit\", not both");
                                    }
                                    return split;
                                }));
    }

    private SourceConfig readSource(JsonObjectReader r) {
        Class<? extends SourceConfig> variant = RecordReader.variant(r, SourceConfig.class);
        if (variant == null) {
            return null;
        }
        SourceConfig source;
        if (variant == CsvSource.class) {
            source = readCsv(r);
        } else if (variant == SyntheticSource.class) {
            source = readSynthetic(r);
        } else if (variant == NumpySource.class) {
            source = readNumpy(r);
        } else {
            source = RecordReader.read(r, variant);
        }
        if (source != null) {
            checkFiles(r, source);
        }
        return source;
    }

    /** Whether the files a source names are there (csv and numpy: in their own readers, with their other rules). */
    private void checkFiles(JsonObjectReader r, SourceConfig source) {
        source.accept(new SourceConfig.Visitor<Void>() {
            @Override
            public Void idx(IdxSource s) {
                checkIdxFiles(r.pathOf("path"), s.path(), s.split());
                return null;
            }

            @Override
            public Void csv(CsvSource s) {
                return null;
            }

            @Override
            public Void images(ImageFolderSource s) {
                checkExists(r.pathOf("path"), s.path(), true);
                return null;
            }

            @Override
            public Void masks(MaskFoldersSource s) {
                checkExists(r.pathOf("images"), s.images(), true);
                checkExists(r.pathOf("masks"), s.masks(), true);
                return null;
            }

            @Override
            public Void synthetic(SyntheticSource s) {
                return null;
            }

            @Override
            public Void text(TextSource s) {
                checkExists(r.pathOf("path"), s.path(), false);
                return null;
            }

            @Override
            public Void numpy(NumpySource s) {
                return null;
            }
        });
    }

    private SourceConfig readCsv(JsonObjectReader r) {
        CsvSource csv = RecordReader.read(r, CsvSource.class, Map.of("imageShape", soFar -> readImageShape(r)));
        if (csv == null) {
            return null;
        }
        checkExists(r.pathOf("path"), csv.path(), false);
        if (csv.delimiter().length() != 1) {
            problems.error(r.pathOf("delimiter"), "must be a single character, such as \",\" or \";\"");
        }
        if (csv.task() == Task.REGRESSION && csv.numClasses() != null) {
            problems.error(r.pathOf("numClasses"), "applies to classification only");
        }
        return csv;
    }

    private SourceConfig readNumpy(JsonObjectReader r) {
        NumpySource n = RecordReader.read(
                r,
                NumpySource.class,
                Map.of(
                        "inputs", soFar -> readNumpyInputs(r),
                        "diffusion", soFar -> DiffusionReader.read(r, problems, soFar.get("task") == Task.DIFFUSION),
                        "derive", soFar -> DeriveReader.read(r, problems, soFar)));
        if (n == null) {
            return null;
        }
        if (n.task() == Task.DIFFUSION) {
            DiffusionReader.check(r, problems, n);
        }
        for (Map.Entry<String, String> input : n.inputs().byName().entrySet()) {
            String at =
                    n.inputs().named() ? JsonLocations.child(r.pathOf("inputs"), input.getKey()) : r.pathOf("inputs");
            checkExists(at, NumpySource.fileOf(input.getValue()), false);
        }
        if (n.targets() != null) {
            checkExists(r.pathOf("targets"), NumpySource.fileOf(n.targets()), false);
        }
        if (n.targetMask() != null) {
            checkExists(r.pathOf("targetMask"), NumpySource.fileOf(n.targetMask()), false);
            boolean perStep = n.targets() != null
                    && (n.task() == Task.SEQUENCE
                            || n.task() == Task.REGRESSION && n.inputs().named());
            if (!perStep) {
                problems.error(
                        r.pathOf("targetMask"),
                        "applies to per-step targets only (task \"sequence\" or \"regression\" with named inputs"
                                + " and \"targets\")");
            }
        }
        if (n.context() != null && n.task() != Task.SEQUENCE) {
            problems.error(r.pathOf("context"), "applies to task \"sequence\" only");
        }
        if (n.noise() > 0 && n.task() != Task.RECONSTRUCTION) {
            problems.error(
                    r.pathOf("noise"),
                    "applies to task \"reconstruction\" only (noise on the inputs, the clean input as target)");
        }
        if (n.numClasses() != null && (n.task() == Task.REGRESSION || n.task() == Task.RECONSTRUCTION)) {
            problems.error(r.pathOf("numClasses"), "applies to classification, segmentation and sequence only");
        }
        return n;
    }

    /** One array as a string, or named arrays as an object of name → array, each checked where it is written. */
    private NumpyInputs readNumpyInputs(JsonObjectReader r) {
        JsonNode v = r.raw("inputs");
        String at = r.pathOf("inputs");
        if (v == null && DiffusionReader.diffusion(r)) {
            return new NumpyInputs(Map.of(), true);
        }
        if (v == null) {
            problems.error(at, "is required: the array to train on, \"x.npy\" or \"data.npz:x\"");
            return null;
        }
        if (v.isTextual() && !v.asText().isEmpty()) {
            return NumpyInputs.single(v.asText());
        }
        if (!v.isObject() || v.isEmpty()) {
            problems.error(
                    at,
                    "must be an array's file (\"x.npy\", \"data.npz:x\") or named arrays such as {\"image\": "
                            + "\"set.npz:img\", \"meta\": \"set.npz:meta\"}, not " + JsonObjectReader.describe(v));
            return null;
        }
        long max = 0;
        for (JsonNode form : r.schema().resolved("inputs").path("oneOf")) {
            max = Math.max(max, form.path("maxProperties").asLong(0));
        }
        if (v.size() > max) {
            problems.error(at, "names " + v.size() + " arrays; a source has at most " + max + " inputs");
            return null;
        }
        Map<String, String> byName = new LinkedHashMap<>();
        boolean ok = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String where = JsonLocations.child(at, e.getKey());
            if (!GraphReader.NODE_NAME.matcher(e.getKey()).matches()) {
                problems.error(
                        where,
                        "an input's name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or '_'");
                ok = false;
            } else if (!e.getValue().isTextual() || e.getValue().asText().isEmpty()) {
                problems.error(
                        where,
                        "must be an array's file, \"x.npy\" or \"data.npz:x\", not "
                                + JsonObjectReader.describe(e.getValue()));
                ok = false;
            } else {
                byName.put(e.getKey(), e.getValue().asText());
            }
        }
        return ok ? new NumpyInputs(byName, true) : null;
    }

    private SourceConfig readSynthetic(JsonObjectReader r) {
        // the schema's defaults are for flat classification data: images have no features, regression no classes
        SyntheticSource s = RecordReader.read(
                r,
                SyntheticSource.class,
                Map.of(
                        "features", soFar -> r.has("imageShape") ? r.integer("features", null) : r.integer("features"),
                        "imageShape", soFar -> readImageShape(r),
                        "numClasses",
                                soFar -> soFar.get("task") == Task.REGRESSION
                                        ? r.integer("numClasses", 0)
                                        : r.integer("numClasses")));
        if (s == null) {
            return null;
        }
        if (s.features() != null && s.imageShape() != null) {
            problems.error(r.pathOf("imageShape"), "give either \"features\" or \"imageShape\", not both");
        }
        boolean regression = s.task() == Task.REGRESSION;
        if (regression && r.has("numClasses")) {
            problems.error(r.pathOf("numClasses"), "applies to classification only");
        }
        if (regression && s.imageShape() != null) {
            problems.error(
                    r.pathOf("imageShape"), "synthetic images are for classification; use \"features\" for regression");
        }
        List<Integer> shape = s.imageShape();
        if (shape != null && !regression && s.numClasses() > Math.max(shape.get(0), shape.get(1))) {
            problems.error(
                    r.pathOf("numClasses"),
                    "synthetic images mark the class by a bar position: at most " + Math.max(shape.get(0), shape.get(1))
                            + " classes for this image size");
        }
        return s;
    }

    private List<Integer> readImageShape(JsonObjectReader r) {
        // [height, width, channels] has per-position rules (prefixItems), written out here
        List<Integer> shape = r.intList("imageShape", 1, 4096, 3);
        if (shape == null) {
            return null;
        }
        if (shape.size() != 3) {
            problems.error(r.pathOf("imageShape"), "must be [height, width, channels], for example [8, 8, 1]");
            return null;
        }
        if (shape.get(2) != 1 && shape.get(2) != 3) {
            problems.error(JsonLocations.element(r.pathOf("imageShape"), 2), "channels must be 1 or 3");
            return null;
        }
        return shape;
    }

    private void checkExists(String at, String path, boolean directory) {
        if (!checkFiles) {
            return;
        }
        Path p = baseDir.resolve(path).normalize();
        if (directory ? !Files.isDirectory(p) : !Files.isRegularFile(p)) {
            String what = directory ? "folder" : "file";
            String hint = Files.exists(p) ? " (it exists but is not a " + what + ")" : "";
            problems.error(at, "no such " + what + ": " + p + hint);
        } else if (!Files.isReadable(p)) {
            problems.error(at, "cannot read " + p + " (permission denied)");
        }
    }

    private void checkIdxFiles(String at, String path, String split) {
        if (!checkFiles) {
            return;
        }
        Path dir = baseDir.resolve(path).normalize();
        boolean fashion = dir.toString().contains("fashion-mnist");
        if (!Files.isDirectory(dir)) {
            problems.error(at, "no such folder: " + dir + (fashion ? ". " + FASHION_MNIST_HINT : ""));
            return;
        }
        for (String kind : List.of("images-idx3-ubyte", "labels-idx1-ubyte")) {
            String base = split + "-" + kind;
            if (!Files.isRegularFile(dir.resolve(base)) && !Files.isRegularFile(dir.resolve(base + ".gz"))) {
                problems.error(
                        at,
                        "the folder " + dir + " has no " + base + " or " + base + ".gz"
                                + (fashion ? ". " + FASHION_MNIST_HINT : ""));
            }
        }
    }
}
