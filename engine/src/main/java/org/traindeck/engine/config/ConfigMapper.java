package org.traindeck.engine.config;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.util.List;

/**
 * The one databind view of the config records, shared by {@link ConfigWriter} and {@link RecordReader}: which fields
 * a record has in JSON, under which names, in which order.
 */
final class ConfigMapper {

    // a schedule without options ("constant") is still written, as its type
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    private ConfigMapper() {
    }

    /** A record's JSON fields in written order (its @JsonPropertyOrder, else its components'), ignored ones left out. */
    static List<BeanPropertyDefinition> properties(Class<?> type) {
        BeanDescription d = MAPPER.getSerializationConfig().introspect(MAPPER.constructType(type));
        return d.findProperties();
    }
}
