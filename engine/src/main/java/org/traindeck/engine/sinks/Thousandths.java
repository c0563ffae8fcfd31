package org.traindeck.engine.sinks;

import java.math.BigDecimal;

/**
 * A count of thousandths (milliseconds) written as a decimal with three places, "12.345" or "-0.005": the text
 * {@code BigDecimal.valueOf(thousandths, 3)} prints, without a BigDecimal per number on every line of a metrics file.
 */
final class Thousandths {

    private Thousandths() {}

    static StringBuilder append(StringBuilder to, long thousandths) {
        if (thousandths == Long.MIN_VALUE) {
            return to.append(BigDecimal.valueOf(thousandths, 3).toPlainString());
        }
        if (thousandths < 0) {
            to.append('-');
        }
        long units = Math.abs(thousandths);
        long fraction = units % 1000;
        to.append(units / 1000).append('.');
        if (fraction < 100) {
            to.append(fraction < 10 ? "00" : "0");
        }
        return to.append(fraction);
    }

    static String of(long thousandths) {
        return append(new StringBuilder(24), thousandths).toString();
    }
}
