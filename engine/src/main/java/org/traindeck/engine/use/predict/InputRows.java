package org.traindeck.engine.use.predict;

import java.util.List;

/**
 * Inputs ready for the network: {@code count} samples of the model's values one after the other (converted as
 * training converts its data), a name for each (the file, or the array and row) for messages and tables, the layout
 * the files' shapes said (null where they said none: image files, vectors) and warnings for the user.
 */
public record InputRows(float[] values, int count, List<String> names, ArrayLayout layout, List<String> warnings) {

    public InputRows {
        names = List.copyOf(names);
        warnings = List.copyOf(warnings);
        if (names.size() != count || count > 0 && values.length % count != 0) {
            throw new IllegalArgumentException(
                    count + " rows, " + names.size() + " names, " + values.length + " values");
        }
    }

    /** Rows read in no particular layout and without warnings. */
    public InputRows(float[] values, int count, List<String> names) {
        this(values, count, names, null, List.of());
    }

    public int length() {
        return count == 0 ? 0 : values.length / count;
    }
}
