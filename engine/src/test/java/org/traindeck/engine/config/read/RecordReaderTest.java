package org.traindeck.engine.config.read;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.config.ConfigProblem;

/**
 * A field described in the schema and given to the record is read with nothing else written: its kind, bounds,
 * choices, whether it is required and its default all come from the schema, with the validator's usual messages.
 */
class RecordReaderTest {

    enum Level {
        LOW("low"),
        HIGH("high");

        @JsonValue
        final String json;

        Level(String json) {
            this.json = json;
        }
    }

    record Section(
            int count,
            double rate,
            boolean on,
            Level level,
            String label,
            List<Integer> sizes,
            long big,
            @JsonProperty("renamedKey") int renamed) {}

    private static final String SCHEMA = """
            {"type": "object", "required": ["count"], "properties": {
              "count": {"type": "integer", "minimum": 1, "maximum": 10},
              "rate": {"type": "number", "exclusiveMinimum": 0, "default": 0.5},
              "on": {"type": "boolean", "default": true},
              "level": {"enum": ["low", "high"], "default": "low"},
              "label": {"type": "string", "default": "none"},
              "sizes": {"type": "array", "items": {"type": "integer", "minimum": 1}, "default": [4, 2]},
              "big": {"type": "integer", "default": 5000000000},
              "renamedKey": {"type": "integer", "default": 7}
            }}
            """;

    private record Read(Section section, List<ConfigProblem> problems) {}

    private static Read read(String json) throws IOException {
        LocatedJsonParser.Result parsed = LocatedJsonParser.parse(json);
        Problems problems = new Problems(parsed.locations());
        SchemaNode schema = SchemaNode.of(new ObjectMapper().readTree(SCHEMA));
        Section s = RecordReader.read(
                new JsonObjectReader(problems, "section", parsed.root(), schema), Section.class, Map.of());
        return new Read(s, problems.all());
    }

    @Test
    void leftOutFieldsTakeTheSchemasDefaults() throws IOException {
        Read r = read("{\"count\": 3}");

        assertThat(r.problems()).isEmpty();
        assertThat(r.section())
                .isEqualTo(new Section(3, 0.5, true, Level.LOW, "none", List.of(4, 2), 5_000_000_000L, 7));
    }

    @Test
    void givenFieldsAreReadUnderTheirJsonNames() throws IOException {
        Read r = read("""
                {"count": 10, "rate": 0.1, "on": false, "level": "high", "label": "x", "sizes": [9], "renamedKey": 1, "big": 2}
                """);

        assertThat(r.problems()).isEmpty();
        assertThat(r.section()).isEqualTo(new Section(10, 0.1, false, Level.HIGH, "x", List.of(9), 2, 1));
    }

    @Test
    void everyWrongFieldIsReportedInOnePassWithItsPathAndPosition() throws IOException {
        Read r = read("""
                {"count": 11, "rate": 0, "on": "yes", "level": "hgh", "sizes": [0], "renamed": 1}
                """);

        assertThat(r.problems())
                .extracting(p -> p.path() + ": " + p.message())
                .containsExactly(
                        "section.count: must be between 1 and 10",
                        "section.rate: must be > 0",
                        "section.on: must be true or false, not the string \"yes\"",
                        "section.level: unknown level 'hgh': did you mean 'high'?\nchoices: 'low', 'high'",
                        "section.sizes[0]: must be ≥ 1",
                        "section.renamed: unknown key \"renamed\": did you mean \"renamedKey\"? (allowed here: count, rate, on, level, label, "
                                + "sizes, big, renamedKey)");
        assertThat(r.problems().get(0).line()).isEqualTo(1);
        assertThat(r.section())
                .as("a list it cannot read leaves no record to build")
                .isNull();
    }

    @Test
    void aRequiredFieldLeftOutIsReported() throws IOException {
        Read r = read("{}");

        assertThat(r.problems())
                .extracting(p -> p.path() + ": " + p.message())
                .containsExactly("section.count: is required");
        assertThat(r.section()).isNull();
    }
}
