package org.traindeck.engine.config;

/**
 * One thing wrong (or doubtful) in a run config, located by its JSON path and, when known, its line and column.
 * {@code toString()} gives the form users see, for example {@code stages[1].epochs: must be ≥ 1 (line 14, column 17)}.
 * A message that names its own subject ("unknown layer type 'conv2xd': did you mean 'conv2d'?") is shown without the
 * path in front, so that its first words are the fix. Its first line is the problem; further lines (a list of
 * choices) are detail, and the position goes at the end of the first line.
 */
public record ConfigProblem(
        Severity severity, String path, String message, int line, int column, boolean namesItsSubject) {

    public enum Severity {
        ERROR,
        WARNING
    }

    public ConfigProblem(Severity severity, String path, String message, int line, int column) {
        this(severity, path, message, line, column, false);
    }

    public static ConfigProblem error(String path, String message, JsonLocations.Position at) {
        return new ConfigProblem(
                Severity.ERROR, path, message, at == null ? 0 : at.line(), at == null ? 0 : at.column());
    }

    public static ConfigProblem warning(String path, String message, JsonLocations.Position at) {
        return new ConfigProblem(
                Severity.WARNING, path, message, at == null ? 0 : at.line(), at == null ? 0 : at.column());
    }

    /** The same problem at another line and column. */
    public ConfigProblem at(int atLine, int atColumn) {
        return new ConfigProblem(severity, path, message, atLine, atColumn, namesItsSubject);
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    public boolean hasPosition() {
        return line > 0;
    }

    /** The problem in one line: what is wrong and its fix, without the detail lines. */
    public String headline() {
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    /** The first line of {@link #toString()}: the problem, its fix and its position, for a one-line status. */
    public String firstLine() {
        String all = toString();
        int nl = all.indexOf('\n');
        return nl < 0 ? all : all.substring(0, nl);
    }

    @Override
    public String toString() {
        String where = hasPosition()
                ? " (line " + line + ", column " + column + ")"
                : namesItsSubject && path != null && !path.isEmpty() ? " (at " + path + ")" : "";
        String prefix = namesItsSubject || path == null || path.isEmpty() ? "" : path + ": ";
        String head = headline();
        return prefix + head + where + message.substring(head.length());
    }
}
