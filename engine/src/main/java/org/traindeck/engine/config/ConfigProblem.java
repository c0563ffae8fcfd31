package org.traindeck.engine.config;

/**
 * One thing wrong (or doubtful) in a run config, located by its JSON path and, when known, its line and column.
 * {@code toString()} gives the form users see, for example {@code stages[1].epochs: must be ≥ 1 (line 14, column 17)}.
 */
public record ConfigProblem(Severity severity, String path, String message, int line, int column) {

    public enum Severity { ERROR, WARNING }

    public static ConfigProblem error(String path, String message, JsonLocations.Position at) {
        return new ConfigProblem(Severity.ERROR, path, message, at == null ? 0 : at.line(), at == null ? 0 : at.column());
    }

    public static ConfigProblem warning(String path, String message, JsonLocations.Position at) {
        return new ConfigProblem(Severity.WARNING, path, message, at == null ? 0 : at.line(), at == null ? 0 : at.column());
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    public boolean hasPosition() {
        return line > 0;
    }

    @Override
    public String toString() {
        String where = hasPosition() ? " (line " + line + ", column " + column + ")" : "";
        String prefix = path == null || path.isEmpty() ? "" : path + ": ";
        return prefix + message + where;
    }
}
