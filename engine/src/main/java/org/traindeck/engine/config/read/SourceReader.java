package org.traindeck.engine.config.read;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.DataConfig;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.Task;

/**
 * Reads a "data" section and its sources. Values and defaults come from the schema; what is written here is what a
 * schema cannot say: one of two keys, shapes, and whether the files are there.
 */
final class SourceReader {

    private final Problems problems;
    private final SourceFiles files;
    private final NumpySourceReader numpy;

    /** @param checkFiles false: the data files need not be there (a stored config, for using its trained model) */
    SourceReader(Problems problems, Path baseDir, boolean checkFiles) {
        this.problems = problems;
        this.files = new SourceFiles(problems, baseDir, checkFiles);
        this.numpy = new NumpySourceReader(problems, files);
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
            source = numpy.read(r);
        } else {
            source = RecordReader.read(r, variant);
        }
        if (source != null) {
            files.checkNamedIn(r, source);
        }
        return source;
    }

    private SourceConfig readCsv(JsonObjectReader r) {
        CsvSource csv = RecordReader.read(r, CsvSource.class, Map.of("imageShape", soFar -> readImageShape(r)));
        if (csv == null) {
            return null;
        }
        files.checkExists(r.pathOf("path"), csv.path(), false);
        if (csv.delimiter().length() != 1) {
            problems.error(r.pathOf("delimiter"), "must be a single character, such as \",\" or \";\"");
        }
        if (csv.task() == Task.REGRESSION && csv.numClasses() != null) {
            problems.error(r.pathOf("numClasses"), "applies to classification only");
        }
        return csv;
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
}
