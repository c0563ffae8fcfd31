package org.traindeck.engine.config.read;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one databind view of the config records, shared by {@link ConfigWriter} and {@link RecordReader}: which fields
 * a record has in JSON, under which names, in which order.
 */
final class ConfigMapper {

    // a schedule without options ("constant") is still written, as its type
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    // introspected once per class: the app validates the config after every edit
    private static final ClassValue<List<BeanPropertyDefinition>> PROPERTIES = new ClassValue<>() {
        @Override
        protected List<BeanPropertyDefinition> computeValue(Class<?> type) {
            BeanDescription d = MAPPER.getSerializationConfig().introspect(MAPPER.constructType(type));
            return List.copyOf(d.findProperties());
        }
    };

    private static final ClassValue<Constructor<?>> CONSTRUCTORS = new ClassValue<>() {
        @Override
        protected Constructor<?> computeValue(Class<?> type) {
            try {
                return type.getDeclaredConstructor(Arrays.stream(type.getRecordComponents())
                        .map(RecordComponent::getType)
                        .toArray(Class<?>[]::new));
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException(type + " has no canonical constructor", e);
            }
        }
    };

    /** Each enum's constants by the JSON text they are written as (their @JsonValue). */
    private static final ClassValue<Map<String, Object>> ENUMS = new ClassValue<>() {
        @Override
        protected Map<String, Object> computeValue(Class<?> type) {
            Map<String, Object> byJson = new HashMap<>();
            for (Object constant : type.getEnumConstants()) {
                byJson.put(MAPPER.valueToTree(constant).asText(), constant);
            }
            return Map.copyOf(byJson);
        }
    };

    private ConfigMapper() {}

    /** A record's canonical constructor. */
    static Constructor<?> canonicalConstructor(Class<?> record) {
        return CONSTRUCTORS.get(record);
    }

    /** The constant of {@code type} written as {@code json}; null when there is none. */
    static Object enumConstant(Class<?> type, String json) {
        return ENUMS.get(type).get(json);
    }

    /** A record's JSON fields in written order (its @JsonPropertyOrder, else its components'), ignored ones left out. */
    static List<BeanPropertyDefinition> properties(Class<?> type) {
        return PROPERTIES.get(type);
    }
}
