package org.traindeck.app.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;

/**
 * Changes one value in a config's text and nothing else: the user's layout, number spellings ({@code 0.00005}, not
 * {@code 5.0E-5}), key order and spacing all stay as typed. A form edit that rewrote the whole file
 * reformatted it.
 */
final class JsonSplice {

    private static final JsonFactory FACTORY = new JsonFactory();
    /** One line, as people type it: {@code [256, 128, 64]}, {@code {"epochs": 1}}. */
    private static final DefaultPrettyPrinter COMPACT = new DefaultPrettyPrinter(Separators.createDefaultInstance()
            .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
            .withObjectEntrySpacing(Separators.Spacing.AFTER)
            .withArrayValueSpacing(Separators.Spacing.AFTER)
            .withObjectEmptySeparator("")
            .withArrayEmptySeparator(""))
            .withArrayIndenter(DefaultPrettyPrinter.NopIndenter.instance)
            .withObjectIndenter(DefaultPrettyPrinter.NopIndenter.instance);

    private JsonSplice() {
    }

    /**
     * The text with the value at {@code path} ({@code stages[0].optimizer.learningRate}) replaced by {@code value},
     * or null when the text has no value there (or is not valid JSON): the caller then edits the tree instead.
     */
    static String replace(String text, String path, JsonNode value) {
        JsonPointer target = pointer(path);
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t == JsonToken.FIELD_NAME || t.isStructEnd()) {
                    continue;
                }
                // a container's own context is already the new one: its place is its parent's
                JsonPointer here = t.isStructStart()
                        ? p.getParsingContext().getParent().pathAsPointer()
                        : p.getParsingContext().pathAsPointer();
                if (!here.equals(target)) {
                    continue;
                }
                int start = (int) p.currentTokenLocation().getCharOffset();
                if (t.isStructStart()) {
                    p.skipChildren();
                } else {
                    p.getText(); // strings are read lazily: finish this one, so the location is past it
                }
                int end = (int) p.currentLocation().getCharOffset();
                return text.substring(0, start) + compact(value) + text.substring(end);
            }
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    static String compact(JsonNode value) {
        try {
            return JsonTree.MAPPER.writer(COMPACT).writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonPointer pointer(String path) {
        StringBuilder b = new StringBuilder();
        for (Object part : JsonTree.parts(path)) {
            b.append('/').append(String.valueOf(part).replace("~", "~0").replace("/", "~1"));
        }
        return JsonPointer.compile(b.toString());
    }
}
