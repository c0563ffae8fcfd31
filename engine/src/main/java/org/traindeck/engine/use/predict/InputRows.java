package org.traindeck.engine.use.predict;

import java.util.List;

/**
 * Inputs ready for the network: {@code count} samples of the model's values one after the other (converted as
 * training converts its data), and a name for each (the file, or the array and row) for messages and tables.
 */
public record InputRows(float[] values, int count, List<String> names) {

    public InputRows {
        names = List.copyOf(names);
        if (names.size() != count || count > 0 && values.length % count != 0) {
            throw new IllegalArgumentException(
                    count + " rows, " + names.size() + " names, " + values.length + " values");
        }
    }

    public int length() {
        return count == 0 ? 0 : values.length / count;
    }
}
