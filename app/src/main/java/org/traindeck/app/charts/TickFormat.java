package org.traindeck.app.charts;

import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;

/**
 * Tick labels as {@link DecadeLogAxis} writes them, for linear axes too: "0.0005", "2e-5", "0" (JFreeChart's default
 * read "5E-4" and "0E0" on a learning-rate axis).
 */
final class TickFormat extends NumberFormat {

    @Override
    public StringBuffer format(double number, StringBuffer toAppendTo, FieldPosition pos) {
        return toAppendTo.append(number == 0 ? "0" : DecadeLogAxis.label(number));
    }

    @Override
    public StringBuffer format(long number, StringBuffer toAppendTo, FieldPosition pos) {
        return format((double) number, toAppendTo, pos);
    }

    @Override
    public Number parse(String source, ParsePosition parsePosition) {
        throw new UnsupportedOperationException("tick labels are only written");
    }
}
