package org.traindeck.engine.data.numpy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the Python dict literal of an {@code .npy} header: strings, integers, True/False/None, tuples and lists. It
 * never evaluates anything; whatever falls outside that grammar is refused with the offset of the first bad character.
 * Tuples and lists become {@code List}, integers {@code Long}, booleans {@code Boolean}, None {@link #NONE}.
 */
final class PyLiteralParser {

    static final Object NONE = new Object() {
        @Override
        public String toString() {
            return "None";
        }
    };

    /** Deep enough for any structured descr NumPy writes (which is refused later anyway), shallow enough for the stack. */
    private static final int MAX_DEPTH = 16;

    private final String text;
    private final String source;
    private final long baseOffset;
    private int pos;

    private PyLiteralParser(String text, String source, long baseOffset) {
        this.text = text;
        this.source = source;
        this.baseOffset = baseOffset;
    }

    /** {@code baseOffset} is where {@code text} starts in the file, so that errors point at the byte. */
    static Map<String, Object> parseDict(String text, String source, long baseOffset) throws NpyFormatException {
        PyLiteralParser p = new PyLiteralParser(text, source, baseOffset);
        p.skipSpace();
        p.expect('{');
        Map<String, Object> dict = new LinkedHashMap<>();
        p.skipSpace();
        while (!p.peekIs('}')) {
            int keyAt = p.pos;
            if (!p.peekIs('\'') && !p.peekIs('"')) {
                throw p.error("expected a quoted key in the header dict");
            }
            String key = p.string();
            p.skipSpace();
            p.expect(':');
            p.skipSpace();
            Object value = p.value(1);
            if (dict.put(key, value) != null) {
                throw new NpyFormatException(source, baseOffset + keyAt, "the header dict names '" + key + "' twice");
            }
            p.skipSpace();
            if (!p.peekIs(',') && !p.peekIs('}')) {
                throw p.error("expected ',' or '}' after the value of '" + key + "'");
            }
            if (p.peekIs(',')) {
                p.pos++;
                p.skipSpace();
            }
        }
        p.expect('}');
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("unexpected text after the header dict");
        }
        return dict;
    }

    private Object value(int depth) throws NpyFormatException {
        if (depth > MAX_DEPTH) {
            throw error("header nested deeper than " + MAX_DEPTH + " levels");
        }
        if (pos >= text.length()) {
            throw error("the header ends where a value was expected");
        }
        char c = text.charAt(pos);
        if (c == '\'' || c == '"') {
            return string();
        }
        if (c == '(' || c == '[') {
            return sequence(c == '(' ? ')' : ']', depth);
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            return integer();
        }
        if (text.startsWith("True", pos)) {
            pos += 4;
            return Boolean.TRUE;
        }
        if (text.startsWith("False", pos)) {
            pos += 5;
            return Boolean.FALSE;
        }
        if (text.startsWith("None", pos)) {
            pos += 4;
            return NONE;
        }
        throw error("unexpected character '" + printable(c) + "' where a value was expected (only strings, integers,"
                + " True/False/None, tuples and lists are read; nothing is evaluated)");
    }

    private List<Object> sequence(char close, int depth) throws NpyFormatException {
        pos++;
        List<Object> items = new ArrayList<>();
        skipSpace();
        while (!peekIs(close)) {
            items.add(value(depth + 1));
            skipSpace();
            if (!peekIs(',')) {
                break;
            }
            pos++;
            skipSpace();
        }
        expect(close);
        return Collections.unmodifiableList(items);
    }

    private String string() throws NpyFormatException {
        char quote = text.charAt(pos);
        int start = ++pos;
        while (pos < text.length() && text.charAt(pos) != quote) {
            char c = text.charAt(pos);
            if (c == '\\' || c == '\n') {
                throw error("escapes and line breaks in header strings are not supported");
            }
            pos++;
        }
        if (pos >= text.length()) {
            throw new NpyFormatException(source, baseOffset + start - 1, "unterminated string in the header");
        }
        return text.substring(start, pos++);
    }

    private Long integer() throws NpyFormatException {
        int start = pos;
        boolean negative = peekIs('-');
        if (negative) {
            pos++;
        }
        long value = 0;
        int digits = 0;
        while (pos < text.length() && Character.isDigit(text.charAt(pos)) && text.charAt(pos) < 128) {
            try {
                value = Math.addExact(Math.multiplyExact(value, 10), text.charAt(pos) - '0');
            } catch (ArithmeticException e) {
                throw new NpyFormatException(source, baseOffset + start, "integer in the header is too large");
            }
            pos++;
            digits++;
        }
        if (digits == 0) {
            throw error("expected digits");
        }
        if (peekIs('L')) {
            pos++; // written by Python 2 NumPy for shapes: (3L, 4L)
        }
        return negative ? -value : value;
    }

    private void skipSpace() {
        while (pos < text.length()
                && (text.charAt(pos) == ' '
                        || text.charAt(pos) == '\n'
                        || text.charAt(pos) == '\t'
                        || text.charAt(pos) == '\r')) {
            pos++;
        }
    }

    private boolean peekIs(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void expect(char c) throws NpyFormatException {
        if (!peekIs(c)) {
            throw error(
                    pos < text.length()
                            ? "expected '" + c + "' but found '" + printable(text.charAt(pos)) + "'"
                            : "expected '" + c + "' but the header ends");
        }
        pos++;
    }

    private NpyFormatException error(String problem) {
        return new NpyFormatException(source, baseOffset + pos, "bad header dict: " + problem);
    }

    private static String printable(char c) {
        return c >= 32 && c < 127 ? String.valueOf(c) : String.format("\\u%04x", (int) c);
    }
}
