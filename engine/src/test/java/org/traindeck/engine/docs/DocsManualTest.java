package org.traindeck.engine.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.TestPaths;

/**
 * The docs read as a manual, not a lab notebook: no time of day anywhere, the kernel docs a design document without
 * dated or load-stamped measurements, and docs/benchmarks.md one current table per group, each said once above it
 * when, on which machine, under what load and with which command it was measured (the command not said again in its
 * rows), its cells short (history belongs in git, not in a cell), and no dates elsewhere in it.
 */
class DocsManualTest {

    static final int MAX_CELL = 200;

    private static final Pattern TIME_OF_DAY = Pattern.compile("(?<![\\d.:])([01]?\\d|2[0-3]):[0-5]\\d(?!\\d)");
    private static final Pattern DATE = Pattern.compile("\\b\\d{4}-\\d{2}-\\d{2}\\b");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    private static final Pattern COMMAND = Pattern.compile("`[^`]+`");
    /** How a bench figure is made: said once above its table, never again in a row. */
    /** What a measurement diary says of each entry: its date and the machine's load then. */
    private static final Pattern DIARY = Pattern.compile("\\b\\d{4}-\\d{2}-\\d{2}\\b|load average|\\bat load \\d");

    private static final Pattern BENCH_COMMAND =
            Pattern.compile("\\./traindeck|traindeck bench|\\bmvn |TRAINDECK_JAVA_OPTS");

    @Test
    void noDocSaysATimeOfDay() {
        List<String> found = new ArrayList<>();
        for (Path file : MarkdownDocs.files()) {
            List<String> prose = MarkdownDocs.prose(file);
            for (int i = 0; i < prose.size(); i++) {
                // code (a log line, an address with a port) may hold a colon between digits; prose may not
                Matcher m =
                        TIME_OF_DAY.matcher(INLINE_CODE.matcher(prose.get(i)).replaceAll(""));
                if (m.find()) {
                    found.add(where(file, i) + ": \"" + m.group() + "\"");
                }
            }
        }
        assertThat(found)
                .as("times of day in the docs (say the date where a figure needs one, and leave the diary to git)")
                .isEmpty();
    }

    @Test
    void theKernelDesignDocsKeepNoMeasurementDiary() {
        List<String> diary = new ArrayList<>();
        for (Path file : MarkdownDocs.files()) {
            if (!file.getFileName().toString().startsWith("kernels")) {
                continue;
            }
            List<String> prose = MarkdownDocs.prose(file);
            for (int i = 0; i < prose.size(); i++) {
                Matcher m = DIARY.matcher(prose.get(i));
                if (m.find()) {
                    diary.add(where(file, i) + ": \"" + m.group() + "\"");
                }
            }
        }
        assertThat(diary)
                .as("dates or machine loads in the kernel docs (a design document: when and under what load a figure"
                        + " was measured is benchmarks.md's, and the diary is in git)")
                .isEmpty();
    }

    @Test
    void everyBenchmarkTableSaysOnceWhenWhereUnderWhatLoadAndHow() {
        Path file = benchmarks();
        List<String> missing = new ArrayList<>();
        List<Table> tables = tables(file);
        for (Table table : tables) {
            String said = String.join(" ", table.above()).strip();
            boolean complete = said.startsWith("Measured ")
                    && DATE.matcher(said).find()
                    && said.contains("machine")
                    && said.contains("load")
                    && COMMAND.matcher(said).find();
            if (!complete) {
                missing.add(where(file, table.headerLine()) + ": \"" + said + "\"");
            }
        }
        assertThat(tables).as("tables in docs/benchmarks.md").hasSizeGreaterThanOrEqualTo(10);
        assertThat(missing)
                .as("each table's paragraph above it starts \"Measured DATE on … machine, load …: `command`\"")
                .isEmpty();
    }

    @Test
    void benchmarkCellsAreShortAndUndated() {
        Path file = benchmarks();
        List<String> tooLong = new ArrayList<>();
        List<String> dated = new ArrayList<>();
        List<String> lines = MarkdownDocs.prose(file);
        for (int i = 0; i < lines.size(); i++) {
            if (!isRow(lines.get(i))) {
                continue;
            }
            for (String cell : cells(lines.get(i))) {
                if (cell.length() > MAX_CELL) {
                    tooLong.add(where(file, i) + ": " + cell.length() + " characters: " + cell.substring(0, 60) + "…");
                }
                if (DATE.matcher(cell).find()) {
                    dated.add(where(file, i) + ": " + cell);
                }
            }
        }
        assertThat(tooLong)
                .as("benchmark table cells over " + MAX_CELL + " characters")
                .isEmpty();
        assertThat(dated)
                .as("dates in benchmark cells (the line above the table says it)")
                .isEmpty();
    }

    @Test
    void benchmarkCommandsAreSaidAboveTheTableNotInItsRows() {
        Path file = benchmarks();
        List<String> repeated = new ArrayList<>();
        List<String> lines = MarkdownDocs.prose(file);
        for (int i = 0; i < lines.size(); i++) {
            if (!isRow(lines.get(i))) {
                continue;
            }
            for (String cell : cells(lines.get(i))) {
                if (BENCH_COMMAND.matcher(cell).find() || cell.equalsIgnoreCase("command")) {
                    repeated.add(where(file, i) + ": " + cell);
                }
            }
        }
        assertThat(repeated)
                .as("commands (or a command column) in benchmark tables: say the command once, above the table")
                .isEmpty();
    }

    @Test
    void benchmarkDatesAreOnlyInTheLinesAboveTables() {
        Path file = benchmarks();
        List<Integer> measuredLines = new ArrayList<>();
        for (Table table : tables(file)) {
            for (int i = table.aboveLine();
                    i < table.aboveLine() + table.above().size();
                    i++) {
                measuredLines.add(i);
            }
        }
        List<String> lines = MarkdownDocs.prose(file);
        List<String> diary = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!isRow(lines.get(i))
                    && !measuredLines.contains(i)
                    && DATE.matcher(lines.get(i)).find()) {
                diary.add(where(file, i) + ": " + lines.get(i));
            }
        }
        assertThat(diary)
                .as("dated prose in docs/benchmarks.md outside the lines that introduce a table")
                .isEmpty();
    }

    @Test
    void theCheckSeesATimeOfDayAndNotAPortOrADate() {
        assertThat(TIME_OF_DAY
                        .matcher("measured 02:45–02:54 on a quiet machine")
                        .find())
                .isTrue();
        assertThat(TIME_OF_DAY.matcher("at 4:15, load 2").find()).isTrue();
        assertThat(TIME_OF_DAY
                        .matcher("spark://10.0.0.1:7077 on 2026-11-26, 1.5:1")
                        .find())
                .isFalse();
        assertThat(cells("| a | b `x|y` | c |")).containsExactly("a", "b `x|y`", "c");
        assertThat(DIARY.matcher("2026-11-22 10:41, load average 11: 0.88×").find())
                .isTrue();
        assertThat(DIARY.matcher("U-Net 0.72× (0.70–0.76, 3 pairs)").find()).isFalse();
        assertThat(BENCH_COMMAND
                        .matcher("`OMP_NUM_THREADS=1 ./traindeck bench resnet` (7.4 min)")
                        .find())
                .isTrue();
        assertThat(BENCH_COMMAND
                        .matcher("`traindeck runs`, one run with a 1.07 GB metrics.jsonl")
                        .find())
                .isFalse();
    }

    /**
     * A table: its header's 0-based line, and the paragraph above it (blank lines between allowed) with its first
     * line; the paragraph is empty when a heading or another table comes first.
     */
    private record Table(int headerLine, int aboveLine, List<String> above) {}

    private static List<Table> tables(Path file) {
        List<String> lines = MarkdownDocs.prose(file);
        List<Table> tables = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (isRow(lines.get(i)) && (i == 0 || !isRow(lines.get(i - 1)))) {
                int end = i;
                while (end > 0 && lines.get(end - 1).isBlank()) {
                    end--;
                }
                int start = end;
                while (start > 0 && isParagraph(lines.get(start - 1))) {
                    start--;
                }
                tables.add(new Table(i, start, List.copyOf(lines.subList(start, end))));
            }
        }
        return tables;
    }

    private static boolean isParagraph(String line) {
        return !line.isBlank() && !line.strip().startsWith("#") && !isRow(line);
    }

    private static boolean isRow(String line) {
        return line.strip().startsWith("|");
    }

    /** A row's cells, split at pipes outside inline code. */
    static List<String> cells(String row) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean code = false;
        String inner = row.strip();
        inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
        for (char c : inner.toCharArray()) {
            if (c == '`') {
                code = !code;
            }
            if (c == '|' && !code) {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString().strip());
        return cells;
    }

    private static Path benchmarks() {
        return TestPaths.repoRoot().resolve("docs/benchmarks.md");
    }

    private static String where(Path file, int index) {
        return TestPaths.repoRoot().relativize(file) + ":" + (index + 1);
    }
}
