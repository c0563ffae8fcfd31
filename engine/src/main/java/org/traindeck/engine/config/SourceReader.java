package org.traindeck.engine.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads a "data" section and its sources. Values and defaults come from the schema; what is written here is what a
 * schema cannot say: one of two keys, shapes, and whether the files are there.
 */
final class SourceReader {

    static final String FASHION_MNIST_HINT =
            "Fashion-MNIST ships in Debian's package dataset-fashion-mnist: install it with `sudo apt-get install dataset-fashion-mnist`";

    private final Problems problems;
    private final Path baseDir;

    SourceReader(Problems problems, Path baseDir) {
        this.problems = problems;
        this.baseDir = baseDir;
    }

    DataConfig readData(JsonObjectReader r) {
        JsonObjectReader trainReader = r.requiredObject("train");
        SourceConfig train = trainReader == null ? null : readSource(trainReader);
        JsonObjectReader validationReader = r.object("validation");
        SourceConfig validation = validationReader == null ? null : readSource(validationReader);
        Double split = r.number("validationSplit");
        if (validation != null && split != null && split > 0) {
            problems.error(r.pathOf("validationSplit"), "give either \"validation\" (a source) or \"validationSplit\", not both");
        }
        boolean shuffle = r.bool("shuffle");
        r.finish();
        return new DataConfig(train, validation, split == null ? 0 : split, shuffle);
    }

    private SourceConfig readSource(JsonObjectReader r) {
        String type = r.requiredChoice("type");
        r.variant(type);
        int limit = r.integer("limit");
        SourceConfig source = null;
        if ("idx".equals(type)) {
            source = readIdx(r, limit);
        } else if ("csv".equals(type)) {
            source = readCsv(r, limit);
        } else if ("images".equals(type)) {
            source = readImages(r, limit);
        } else if ("synthetic".equals(type)) {
            source = readSynthetic(r, limit);
        } else {
            r.allow("path", "split", "labelColumn", "header", "delimiter", "task", "numClasses", "imageShape",
                    "normalize", "width", "height", "channels", "samples", "features", "noise");
        }
        r.finish();
        return source;
    }

    private SourceConfig readIdx(JsonObjectReader r, int limit) {
        String path = r.requiredString("path");
        String split = r.choice("split");
        if (path != null && split != null) {
            checkIdxFiles(r.pathOf("path"), path, split);
        }
        return new SourceConfig.Idx(path, split, limit);
    }

    private SourceConfig readCsv(JsonObjectReader r, int limit) {
        String path = r.requiredString("path");
        if (path != null) {
            checkExists(r.pathOf("path"), path, false);
        }
        Integer labelColumn = r.integer("labelColumn");
        boolean header = r.bool("header");
        String delimiter = r.string("delimiter");
        if (delimiter != null && delimiter.length() != 1) {
            problems.error(r.pathOf("delimiter"), "must be a single character, such as \",\" or \";\"");
        }
        String task = r.choice("task");
        Integer numClasses = r.integer("numClasses");
        if ("regression".equals(task) && numClasses != null) {
            problems.error(r.pathOf("numClasses"), "applies to classification only");
        }
        List<Integer> imageShape = readImageShape(r);
        String normalize = r.choice("normalize");
        return new SourceConfig.Csv(path, labelColumn, header, delimiter, Task.of(task == null ? "classification" : task),
                numClasses, imageShape, SourceConfig.Normalize.of(normalize == null ? "none" : normalize), limit);
    }

    private SourceConfig readImages(JsonObjectReader r, int limit) {
        String path = r.requiredString("path");
        if (path != null) {
            checkExists(r.pathOf("path"), path, true);
        }
        Integer width = r.requiredInt("width");
        Integer height = r.requiredInt("height");
        Integer channels = r.integer("channels");
        if (channels != null && channels == 2) {
            problems.error(r.pathOf("channels"), "must be 1 (grey) or 3 (RGB)");
        }
        return new SourceConfig.ImageFolder(path, width == null ? 1 : width, height == null ? 1 : height, channels,
                limit);
    }

    private SourceConfig readSynthetic(JsonObjectReader r, int limit) {
        String task = r.choice("task");
        Integer samples = r.integer("samples");
        Integer features = r.integer("features", null);
        List<Integer> imageShape = readImageShape(r);
        if (features != null && imageShape != null) {
            problems.error(r.pathOf("imageShape"), "give either \"features\" or \"imageShape\", not both");
        }
        // the schema's defaults are for flat classification data: images have no features, regression no classes
        if (imageShape == null && !r.has("features")) {
            features = r.integer("features");
        }
        boolean regression = "regression".equals(task);
        Integer numClasses = regression ? r.integer("numClasses", null) : r.integer("numClasses");
        if (regression && r.has("numClasses")) {
            problems.error(r.pathOf("numClasses"), "applies to classification only");
        }
        if (regression && imageShape != null) {
            problems.error(r.pathOf("imageShape"), "synthetic images are for classification; use \"features\" for regression");
        }
        if (imageShape != null && numClasses != null && numClasses > Math.max(imageShape.get(0), imageShape.get(1))) {
            problems.error(r.pathOf("numClasses"), "synthetic images mark the class by a bar position: at most "
                    + Math.max(imageShape.get(0), imageShape.get(1)) + " classes for this image size");
        }
        return new SourceConfig.Synthetic(Task.of(task == null ? "classification" : task), samples,
                features, imageShape, numClasses == null ? 0 : numClasses, r.number("noise"),
                limit);
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
        Path dir = baseDir.resolve(path).normalize();
        boolean fashion = dir.toString().contains("fashion-mnist");
        if (!Files.isDirectory(dir)) {
            problems.error(at, "no such folder: " + dir + (fashion ? ". " + FASHION_MNIST_HINT : ""));
            return;
        }
        for (String kind : List.of("images-idx3-ubyte", "labels-idx1-ubyte")) {
            String base = split + "-" + kind;
            if (!Files.isRegularFile(dir.resolve(base)) && !Files.isRegularFile(dir.resolve(base + ".gz"))) {
                problems.error(at, "the folder " + dir + " has no " + base + " or " + base + ".gz"
                        + (fashion ? ". " + FASHION_MNIST_HINT : ""));
            }
        }
    }
}
