package org.traindeck.app.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Changes one value in a config's text and nothing else: the user's layout, number spellings ({@code 0.00005}, not
 * {@code 5.0E-5}), key order and spacing all stay as typed. A form edit that rewrote the whole file
 * reformatted it. A value is replaced in place, a missing member is added after its object's last one (laid out as
 * its siblings are), and a member is removed with its comma.
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

    private JsonSplice() {}

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

    /**
     * The text with member {@code path}'s last key added to the object its parent path names, after that object's
     * last member and spaced as the last member is from the one before it (a one-line object stays on one line); null
     * when that object is not in the text, already has the key, or the text is not valid JSON.
     */
    static String insert(String text, String path, JsonNode value) {
        Place place = Place.of(path);
        if (place == null) {
            return null;
        }
        Members object = members(text, place.parent());
        if (object == null || object.find(place.key()) != null) {
            return null;
        }
        String member = compact(JsonNodeFactory.instance.textNode(place.key())) + ": " + compact(value);
        if (object.members().isEmpty()) {
            String inside = text.substring(object.open() + 1, object.close());
            String pad = inside.contains("\n") || inside.isEmpty() ? "" : " ";
            return text.substring(0, object.open() + 1) + pad + member + pad + text.substring(object.close());
        }
        Member last = object.members().get(object.members().size() - 1);
        // the gap between the last member and what precedes it: "\n    " in a laid-out object, " " in a compact one
        int before = object.members().size() > 1
                ? object.members().get(object.members().size() - 2).valueEnd()
                : object.open() + 1;
        String gap = text.substring(before, last.nameStart()).replaceFirst("^\\s*,", "");
        if (object.members().size() == 1 && gap.isEmpty()) {
            gap = " ";
        }
        return text.substring(0, last.valueEnd()) + "," + gap + member + text.substring(last.valueEnd());
    }

    /**
     * The text without member {@code path}, its comma and the space before it (the first member takes the space after
     * it instead); null when the text has no such member or is not valid JSON.
     */
    static String remove(String text, String path) {
        Place place = Place.of(path);
        if (place == null) {
            return null;
        }
        Members object = members(text, place.parent());
        Member m = object == null ? null : object.find(place.key());
        if (m == null) {
            return null;
        }
        int i = object.members().indexOf(m);
        if (i > 0) {
            return text.substring(0, object.members().get(i - 1).valueEnd()) + text.substring(m.valueEnd());
        }
        if (object.members().size() > 1) {
            return text.substring(0, m.nameStart())
                    + text.substring(object.members().get(1).nameStart());
        }
        return text.substring(0, object.open() + 1) + text.substring(object.close());
    }

    /**
     * The text with {@code element} (JSON text, kept as given) added after the last element of the array at
     * {@code path}, spaced from it as that element is from the one before; null when the text has no array there.
     */
    static String append(String text, String path, String element) {
        Members array = elements(text, pointer(path));
        if (array == null) {
            return null;
        }
        List<Member> items = array.members();
        if (items.isEmpty()) {
            return text.substring(0, array.open() + 1) + element + text.substring(array.close());
        }
        Member last = items.get(items.size() - 1);
        int before = items.size() > 1 ? items.get(items.size() - 2).valueEnd() : array.open() + 1;
        String gap = text.substring(before, last.nameStart()).replaceFirst("^\\s*,", "");
        if (items.size() == 1 && gap.isEmpty()) {
            gap = " ";
        }
        return text.substring(0, last.valueEnd()) + "," + gap + element + text.substring(last.valueEnd());
    }

    /** The text without element {@code index} of the array at {@code path} and its comma; null when there is none. */
    static String removeElement(String text, String path, int index) {
        Members array = elements(text, pointer(path));
        if (array == null || index < 0 || index >= array.members().size()) {
            return null;
        }
        List<Member> items = array.members();
        Member m = items.get(index);
        if (index > 0) {
            return text.substring(0, items.get(index - 1).valueEnd()) + text.substring(m.valueEnd());
        }
        if (items.size() > 1) {
            return text.substring(0, m.nameStart())
                    + text.substring(items.get(1).nameStart());
        }
        return text.substring(0, array.open() + 1) + text.substring(array.close());
    }

    /** The text of element {@code index} of the array at {@code path} as typed, or null. */
    static String element(String text, String path, int index) {
        Members array = elements(text, pointer(path));
        if (array == null || index < 0 || index >= array.members().size()) {
            return null;
        }
        Member m = array.members().get(index);
        return text.substring(m.nameStart(), m.valueEnd());
    }

    /** The array at {@code at}: its brackets, and its elements as members named by their index. */
    private static Members elements(String text, JsonPointer at) {
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t != JsonToken.START_ARRAY
                        || !p.getParsingContext().getParent().pathAsPointer().equals(at)) {
                    continue;
                }
                int open = (int) p.currentTokenLocation().getCharOffset();
                List<Member> items = new ArrayList<>();
                JsonToken v;
                while ((v = p.nextToken()) != JsonToken.END_ARRAY) {
                    int start = (int) p.currentTokenLocation().getCharOffset();
                    if (v.isStructStart()) {
                        p.skipChildren();
                    } else {
                        p.getText();
                    }
                    items.add(new Member(String.valueOf(items.size()), start, (int)
                            p.currentLocation().getCharOffset()));
                }
                int close = (int) p.currentTokenLocation().getCharOffset();
                while (p.nextToken() != null) {
                    p.skipChildren();
                }
                return new Members(open, close, items);
            }
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    /** A member's key and where its name starts and its value ends. */
    private record Member(String key, int nameStart, int valueEnd) {}

    /** An object's braces and members, as offsets into the text. */
    private record Members(int open, int close, List<Member> members) {
        Member find(String key) {
            return members.stream().filter(m -> m.key().equals(key)).findFirst().orElse(null);
        }
    }

    /** A member's place: the object that holds it and its key. */
    private record Place(JsonPointer parent, String key) {
        static Place of(String path) {
            List<Object> parts = JsonTree.parts(path);
            if (parts.isEmpty() || !(parts.get(parts.size() - 1) instanceof String key)) {
                return null;
            }
            int dot = Math.max(path.lastIndexOf('.'), 0);
            return new Place(pointer(path.substring(0, dot)), key);
        }
    }

    /** The object at {@code at} with its members, or null when the text has no object there. */
    private static Members members(String text, JsonPointer at) {
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t != JsonToken.START_OBJECT) {
                    continue;
                }
                JsonPointer here = p.getParsingContext().getParent().pathAsPointer();
                if (!here.equals(at)) {
                    continue;
                }
                int open = (int) p.currentTokenLocation().getCharOffset();
                List<Member> members = new ArrayList<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    int nameStart = (int) p.currentTokenLocation().getCharOffset();
                    JsonToken v = p.nextToken();
                    if (v.isStructStart()) {
                        p.skipChildren();
                    } else {
                        p.getText();
                    }
                    members.add(
                            new Member(key, nameStart, (int) p.currentLocation().getCharOffset()));
                }
                int close = (int) p.currentTokenLocation().getCharOffset();
                // the parser stops at the first broken token: only a whole document is edited
                while (p.nextToken() != null) {
                    p.skipChildren();
                }
                return new Members(open, close, members);
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
