package org.traindeck.engine.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;
import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.Task;

/**
 * Reads a numeric CSV (optionally .gz) with one sample per row. Class labels may be numbers (0, 1, ...) or names;
 * names get indices in sorted order, and a validation file reuses the training file's names.
 */
public final class CsvReader {

    private CsvReader() {}

    /**
     * @param knownClassNames the training data's class names when reading validation data with named classes, else null
     */
    public static Dataset read(Path file, CsvSource config, List<String> knownClassNames) throws IOException {
        Rows rows = readRows(file, config);
        if (rows.features.isEmpty()) {
            throw new IOException(file + " has no data rows");
        }
        int featureCount = rows.columns - 1;
        float[] features = new float[rows.features.size() * featureCount];
        for (int i = 0; i < rows.features.size(); i++) {
            System.arraycopy(rows.features.get(i), 0, features, i * featureCount, featureCount);
        }
        SampleShape.Image shape = null;
        if (config.imageShape() != null) {
            List<Integer> s = config.imageShape();
            shape = new SampleShape.Image(s.get(2), s.get(0), s.get(1));
            if (shape.pixels() != featureCount) {
                throw new IOException(file + " has " + featureCount + " feature columns, but imageShape " + s
                        + " needs " + shape.pixels());
            }
            features = hwcToChw(features, rows.features.size(), shape);
        }
        if (config.task() == Task.REGRESSION) {
            float[] targets = new float[rows.labels.size()];
            for (int i = 0; i < targets.length; i++) {
                targets[i] = parse(rows.labels.get(i), file, -1, rows.labelIndex);
            }
            Dataset d = ArrayDatasets.regression(features, featureCount, targets);
            return shape == null ? d : d.asImages(shape);
        }
        checkLabels(file, rows.labels, rows.labelLines, rows.labelIndex);
        return classify(file, config, features, featureCount, rows.labels, shape, knownClassNames);
    }

    /** The rows read so far: each row's features, its label's text and line, and the column layout of the first row. */
    private static final class Rows {
        final List<float[]> features = new ArrayList<>();
        final List<String> labels = new ArrayList<>();
        final List<Integer> labelLines = new ArrayList<>();
        int columns = -1;
        int labelIndex = -1;
    }

    private static Rows readRows(Path file, CsvSource config) throws IOException {
        char delimiter = config.delimiter().charAt(0);
        Rows rows = new Rows();
        try (BufferedReader reader = open(file)) {
            String line;
            int lineNo = 0;
            boolean headerPending = config.header();
            while ((line = reader.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                String[] cells = split(line, delimiter);
                if (rows.columns < 0) {
                    layOut(rows, cells.length, file, lineNo, config);
                }
                if (headerPending) {
                    headerPending = false;
                    continue;
                }
                addRow(rows, cells, file, lineNo);
                if (config.limit() > 0 && rows.features.size() >= config.limit()) {
                    break;
                }
            }
        }
        return rows;
    }

    private static void layOut(Rows rows, int columns, Path file, int lineNo, CsvSource config) throws IOException {
        if (columns < 2) {
            throw new IOException(file + " line " + lineNo + ": only one column (is \"delimiter\" right? it is '"
                    + config.delimiter().charAt(0) + "')");
        }
        rows.columns = columns;
        rows.labelIndex = config.labelColumn() < 0 ? columns + config.labelColumn() : config.labelColumn();
        if (rows.labelIndex < 0 || rows.labelIndex >= columns) {
            throw new IOException(
                    file + " has " + columns + " columns, so labelColumn " + config.labelColumn() + " does not exist");
        }
    }

    private static void addRow(Rows rows, String[] cells, Path file, int lineNo) throws IOException {
        if (cells.length != rows.columns) {
            throw new IOException(
                    file + " line " + lineNo + ": " + cells.length + " columns, but the first row has " + rows.columns);
        }
        float[] row = new float[rows.columns - 1];
        int k = 0;
        for (int c = 0; c < rows.columns; c++) {
            if (c == rows.labelIndex) {
                String label = cells[c].trim();
                if (label.isEmpty()) {
                    throw new IOException(file + " line " + lineNo + ", column " + (c + 1) + ": the label is empty");
                }
                rows.labels.add(label);
                rows.labelLines.add(lineNo);
                continue;
            }
            row[k++] = parse(cells[c], file, lineNo, c);
        }
        rows.features.add(row);
    }

    /**
     * Class labels are whole numbers 0, 1, ... or names, not both, and never fractions: a "1.5" or a stray word among
     * numbers is a damaged file, not a new class.
     */
    private static void checkLabels(Path file, List<String> labels, List<Integer> lines, int labelIndex)
            throws IOException {
        int numbers = 0;
        for (String l : labels) {
            if (isNumber(l)) {
                numbers++;
            }
        }
        if (numbers == 0) {
            return; // named classes
        }
        for (int i = 0; i < labels.size(); i++) {
            String l = labels.get(i);
            if (!isClassNumber(l)) {
                throw new IOException(file + " line " + lines.get(i) + ", column " + (labelIndex + 1) + ": the label \""
                        + l + "\" is "
                        + (isNumber(l) ? "not a whole number ≥ 0" : "a name among numeric labels")
                        + ": class labels are whole numbers 0, 1, ... (or names throughout)");
            }
        }
    }

    private static boolean isNumber(String s) {
        try {
            Double.parseDouble(s);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static Dataset classify(
            Path file,
            CsvSource config,
            float[] features,
            int featureCount,
            List<String> labelTexts,
            SampleShape.Image shape,
            List<String> knownClassNames)
            throws IOException {
        int[] classes = new int[labelTexts.size()];
        boolean numeric = knownClassNames == null && labelTexts.stream().allMatch(CsvReader::isClassNumber);
        if (numeric) {
            int max = 0;
            for (int i = 0; i < classes.length; i++) {
                classes[i] = (int) Double.parseDouble(labelTexts.get(i));
                max = Math.max(max, classes[i]);
            }
            int numClasses = config.numClasses() != null ? config.numClasses() : Math.max(2, max + 1);
            if (max >= numClasses) {
                throw new IOException(file + " has class " + max + ", but numClasses is " + numClasses
                        + " (classes are 0.." + (numClasses - 1) + ")");
            }
            return ArrayDatasets.classification(features, featureCount, classes, numClasses, shape, null);
        }
        List<String> names = knownClassNames != null ? knownClassNames : List.copyOf(new TreeSet<>(labelTexts));
        Map<String, Integer> index = new TreeMap<>();
        for (int i = 0; i < names.size(); i++) {
            index.put(names.get(i), i);
        }
        for (int i = 0; i < classes.length; i++) {
            Integer c = index.get(labelTexts.get(i));
            if (c == null) {
                throw new IOException(
                        file + ": class \"" + labelTexts.get(i) + "\" does not occur in the training data " + names);
            }
            classes[i] = c;
        }
        int numClasses = config.numClasses() != null ? config.numClasses() : Math.max(2, names.size());
        if (names.size() > numClasses) {
            throw new IOException(file + " has " + names.size() + " class names, but numClasses is " + numClasses);
        }
        return ArrayDatasets.classification(features, featureCount, classes, numClasses, shape, names);
    }

    private static boolean isClassNumber(String s) {
        try {
            double d = Double.parseDouble(s);
            return d >= 0 && d == Math.rint(d) && d < 1e6;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static float parse(String cell, Path file, int lineNo, int column) throws IOException {
        String s = cell.trim();
        try {
            float v = Float.parseFloat(s);
            if (!Float.isFinite(v)) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            String where = lineNo > 0 ? " line " + lineNo + "," : "";
            throw new IOException(file + where + " column " + (column + 1) + ": \"" + s + "\" is not a finite number");
        }
    }

    /** Splits on the delimiter, honouring double quotes around a cell. */
    static String[] split(String line, char delimiter) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (ch == '"') {
                if (quoted && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else {
                    quoted = !quoted;
                }
            } else if (ch == delimiter && !quoted) {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(ch);
            }
        }
        cells.add(cell.toString());
        return cells.toArray(String[]::new);
    }

    /** CSV image rows are height × width × channels (as numpy stores them); the networks want channels first. */
    private static float[] hwcToChw(float[] features, int n, SampleShape.Image s) {
        if (s.channels() == 1) {
            return features;
        }
        float[] out = new float[features.length];
        int hw = s.height() * s.width();
        for (int i = 0; i < n; i++) {
            int base = i * s.pixels();
            for (int p = 0; p < hw; p++) {
                for (int c = 0; c < s.channels(); c++) {
                    out[base + c * hw + p] = features[base + p * s.channels() + c];
                }
            }
        }
        return out;
    }

    private static BufferedReader open(Path file) throws IOException {
        InputStream in = Files.newInputStream(file);
        if (file.getFileName().toString().endsWith(".gz")) {
            in = new GZIPInputStream(in, 1 << 16);
        }
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
    }
}
