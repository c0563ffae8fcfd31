package org.traindeck.engine.data;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.traindeck.engine.config.Task;

/**
 * Reads a UTF-8 text into character tokens for next-token prediction: the vocabulary is the text's distinct
 * characters, sorted (a validation text must use the training text's), and the samples are windows of
 * {@code context} tokens whose targets are the same windows one token later.
 */
public final class TextReader {

    /** A text larger than this is the wrong file for a character model held in memory. */
    static final long MAX_BYTES = 512L << 20;

    private TextReader() {}

    /**
     * @param vocabulary the training text's vocabulary when reading validation text, else null (it is built here)
     */
    public static Dataset read(Path file, int context, int stride, int limit, Vocabulary vocabulary)
            throws IOException {
        long size = Files.size(file);
        if (size > MAX_BYTES) {
            throw new IOException(
                    file + " is " + size / (1 << 20) + " MB; a text source holds at most " + (MAX_BYTES >> 20) + " MB");
        }
        String text = decode(file, Files.readAllBytes(file));
        int[] codePoints = text.codePoints().toArray();
        if (vocabulary == null) {
            TreeSet<Integer> distinct = new TreeSet<>();
            for (int c : codePoints) {
                distinct.add(c);
            }
            List<String> tokens = new ArrayList<>();
            distinct.forEach(c -> tokens.add(new String(Character.toChars(c))));
            vocabulary = new Vocabulary(tokens);
        }
        if (vocabulary.size() < 2) {
            throw new IOException(
                    file + " has " + vocabulary.size() + " distinct character(s): there is nothing to predict");
        }
        Map<String, Integer> ids = vocabulary.ids();
        int[] tokens = new int[codePoints.length];
        int chars = 0;
        for (int i = 0; i < codePoints.length; i++) {
            Integer id = ids.get(new String(Character.toChars(codePoints[i])));
            if (id == null) {
                throw new IOException(file + ": character " + describe(codePoints[i]) + " at character " + chars
                        + " is not in the training text's vocabulary; a validation text must use the same characters");
            }
            tokens[i] = id;
            chars++;
        }
        TokenWindows inputs = new TokenWindows(tokens, context, stride, 0, limit);
        if (inputs.size() < 1) {
            throw new IOException(
                    file + " has " + tokens.length + " characters: it needs at least context + 1 = " + (context + 1));
        }
        return Dataset.of(
                inputs,
                new SampleShape.Tokens(context),
                Task.SEQUENCE,
                new TokenWindows(tokens, context, stride, 1, limit),
                vocabulary.size(),
                null,
                vocabulary);
    }

    /** Strict UTF-8, naming the byte offset of the first bad sequence. */
    static String decode(Path file, byte[] bytes) throws IOException {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length + 1);
        CoderResult result = decoder.decode(in, out, true);
        if (result.isError()) {
            throw new IOException(file + " is not UTF-8 text: an invalid byte sequence at byte offset " + in.position()
                    + " (0x" + String.format("%02x", bytes[in.position()] & 0xff)
                    + "). Convert it, e.g. iconv -f latin1 -t utf-8");
        }
        decoder.flush(out);
        out.flip();
        String text = out.toString();
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    private static String describe(int codePoint) {
        return Character.isISOControl(codePoint) || Character.isWhitespace(codePoint)
                ? String.format("U+%04X", codePoint)
                : "'" + new String(Character.toChars(codePoint)) + "' (" + String.format("U+%04X", codePoint) + ")";
    }
}
