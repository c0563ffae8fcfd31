package org.traindeck.engine.use.export;

import java.util.Arrays;
import java.util.Locale;

/** The file formats export writes. */
public enum ExportFormat {
    SAFETENSORS("safetensors"),
    NPZ("npz");

    public final String json;

    ExportFormat(String json) {
        this.json = json;
    }

    /** @throws ExportException naming the formats there are */
    public static ExportFormat parse(String name) {
        for (ExportFormat f : values()) {
            if (f.json.equals(name.toLowerCase(Locale.ROOT))) {
                return f;
            }
        }
        throw new ExportException("--format: unknown format '" + name + "'; use one of "
                + String.join(", ", Arrays.stream(values()).map(f -> f.json).toList()));
    }
}
