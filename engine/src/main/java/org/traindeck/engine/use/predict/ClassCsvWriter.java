package org.traindeck.engine.use.predict;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A classifier's predictions as CSV, one line per input: {@code input,class,name,probability}, then each class's
 * probability in class order ({@code p:<name>}). Inputs and names are quoted where they hold a comma or a quote.
 */
final class ClassCsvWriter {

    private ClassCsvWriter() {}

    static void write(Predictions p, PredictionModel model, OutputStream stream) throws IOException {
        int classes = (int) p.shape()[1];
        Writer out = new OutputStreamWriter(stream, StandardCharsets.UTF_8);
        StringBuilder header = new StringBuilder("input,class,name,probability");
        for (int c = 0; c < classes; c++) {
            header.append(',').append(quoted("p:" + model.className(c)));
        }
        out.write(header.append('\n').toString());
        for (int i = 0; i < p.count(); i++) {
            int best = (int) p.classes()[i];
            StringBuilder line = new StringBuilder(quoted(p.names().get(i)))
                    .append(',')
                    .append(best)
                    .append(',')
                    .append(quoted(model.className(best)))
                    .append(',')
                    .append(number(p.values()[i * classes + best]));
            for (int c = 0; c < classes; c++) {
                line.append(',').append(number(p.values()[i * classes + c]));
            }
            out.write(line.append('\n').toString());
        }
        out.flush();
    }

    private static String number(float v) {
        return String.format(Locale.ROOT, "%.6g", v);
    }

    static String quoted(String s) {
        return s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
