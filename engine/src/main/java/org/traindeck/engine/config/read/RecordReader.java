package org.traindeck.engine.config.read;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a config record field by field as the schema describes each one: its kind, bounds, choices, whether it is
 * required, and its default. The record's JSON names and order are the ones it is written with, so a field added to
 * the schema and to the record is read with nothing else to write; fields with rules of their own get a reader in
 * {@code own}. Problems go to the reader's problem list, as for every other read.
 */
final class RecordReader {

    /**
     * Reads one field that needs more than the schema, or supplies a component the JSON does not hold (the config's
     * folder); {@code soFar} holds the fields read before it, by component name.
     */
    interface FieldReader {
        Object read(Map<String, Object> soFar);
    }

    private RecordReader() {}

    /** The record, or null when a value it cannot do without is missing or wrong (which is reported). */
    static <T> T read(JsonObjectReader r, Class<T> type, Map<String, FieldReader> own) {
        if (!type.isRecord()) {
            throw new IllegalArgumentException(type + " is not a record");
        }
        RecordComponent[] components = type.getRecordComponents();
        Map<String, Object> values = new HashMap<>();
        boolean complete = true;
        for (BeanPropertyDefinition p : ConfigMapper.properties(type)) {
            String key = p.getName();
            RecordComponent c = component(components, p.getInternalName(), type);
            Object v = own.containsKey(key) ? own.get(key).read(values) : bySchema(r, key, c.getType());
            if (v instanceof String s && c.getType().isEnum()) {
                v = ConfigMapper.enumConstant(c.getType(), s);
            }
            // a wrong or missing required value is reported and read as null: the record cannot be built, and need not
            // be
            if (v == null
                    && (c.getType().isPrimitive() || r.has(key) || r.schema().isRequired(key))) {
                complete = false;
            }
            values.put(c.getName(), v);
        }
        r.finish();
        for (RecordComponent c : components) {
            if (!values.containsKey(c.getName())) {
                if (!own.containsKey(c.getName())) {
                    throw new IllegalStateException(
                            type.getSimpleName() + "." + c.getName() + " is not written in JSON: it needs a reader");
                }
                values.put(c.getName(), own.get(c.getName()).read(values));
            }
        }
        if (!complete) {
            return null;
        }
        Object[] args =
                Arrays.stream(components).map(c -> values.get(c.getName())).toArray();
        try {
            return type.cast(ConfigMapper.canonicalConstructor(type).newInstance(args));
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot build " + type.getSimpleName() + " from " + values, e);
        }
    }

    static <T> T read(JsonObjectReader r, Class<T> type) {
        return read(r, type, Map.of());
    }

    /**
     * Reads the "type" that picks a variant of a sealed config type (a model, a data source, a schedule) and turns the
     * reader to that variant's schema. Null when the type is missing or unknown (reported); the object's keys are
     * then taken as they are, since without a type they cannot be judged.
     */
    @SuppressWarnings("unchecked")
    static <T> Class<? extends T> variant(JsonObjectReader r, Class<T> sealed) {
        String type = r.requiredChoice("type");
        if (type != null) {
            r.variant(type);
            for (JsonSubTypes.Type t : sealed.getAnnotation(JsonSubTypes.class).value()) {
                if (t.name().equals(type)) {
                    return (Class<? extends T>) t.value();
                }
            }
        }
        r.allowAnyVariantKey();
        r.finish();
        return null;
    }

    static Object bySchema(JsonObjectReader r, String key, Class<?> javaType) {
        SchemaNode schema = r.schema();
        boolean required = schema.isRequired(key);
        return switch (schema.kind(key)) {
            case BOOLEAN -> {
                // not a conditional expression: it would unbox an absent value
                if (schema.defaultOf(key) == null && !required) {
                    yield r.optionalBool(key);
                }
                yield r.bool(key);
            }
            case INTEGER -> integer(r, key, required, javaType);
            case INTEGER_CHOICE -> r.integerChoice(key);
            case NUMBER -> required ? r.requiredNumber(key) : r.number(key);
            case CHOICE -> required ? r.requiredChoice(key) : r.choice(key);
            case STRING -> required ? r.requiredString(key) : r.string(key);
            case INT_LIST -> r.intList(key);
            case INT_OR_LIST -> r.intOrList(key);
            // a section of plain fields (logging, parallel): read the same way, absent meaning every default
            case OTHER -> {
                if (!javaType.isRecord() || javaType.isAnnotationPresent(JsonSubTypes.class)) {
                    throw new IllegalStateException(
                            r.pathOf(key) + " is not a plain value: it needs a reader of its own");
                }
                yield read(r.section(key), javaType);
            }
        };
    }

    // not a conditional expression: it would unbox Integer and Long to one numeric type
    private static Object integer(JsonObjectReader r, String key, boolean required, Class<?> javaType) {
        if (required) {
            return r.requiredInt(key);
        }
        if (javaType == long.class || javaType == Long.class) {
            return r.longValue(key);
        }
        return r.integer(key);
    }

    private static RecordComponent component(RecordComponent[] components, String name, Class<?> type) {
        return Arrays.stream(components)
                .filter(c -> c.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(type.getSimpleName() + " has no component " + name));
    }
}
