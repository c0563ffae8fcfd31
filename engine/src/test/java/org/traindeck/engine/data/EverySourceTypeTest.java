package org.traindeck.engine.data;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.NumpyInputs;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.parallel.DataFile;
import org.traindeck.engine.train.batch.StageSetup;
import org.traindeck.engine.train.step.ClusterSessions;

/**
 * The data-source seam, table-driven over the source types. A missing case in a visitor or a record is a compile
 * error ({@link SourceConfig.Visitor}, the interface's abstract methods); what a compiler cannot see is checked here
 * for every type the schema lists: it has a record, the reader reads it into a dataset with a shape, and every file
 * or folder its config names is among its {@link SourceConfig#paths()}, so data caches notice an edit of it and a
 * cluster's executors are checked to see the same files.
 */
class EverySourceTypeTest {

    static Stream<String> types() {
        return Arrays.stream(
                        SourceConfig.class.getAnnotation(JsonSubTypes.class).value())
                .map(JsonSubTypes.Type::name);
    }

    @Test
    void theSchemaAndTheRecordsListTheSameSourceTypes() throws IOException {
        JsonNode schema = new ObjectMapper()
                .readTree(TestPaths.repoRoot()
                        .resolve("docs/run-config.schema.json")
                        .toFile());
        Set<String> inSchema = new TreeSet<>();
        schema.at("/$defs/source/oneOf")
                .forEach(s -> inSchema.add(s.at("/properties/type/const").asText()));
        Set<String> records = types().collect(Collectors.toCollection(TreeSet::new));

        assertThat(records).isEqualTo(inSchema);
        assertThat(Arrays.stream(SourceConfig.class
                                .getAnnotation(JsonSubTypes.class)
                                .value())
                        .map(JsonSubTypes.Type::value)
                        .collect(Collectors.toSet()))
                .as("one record per type, each permitted by the sealed interface")
                .isEqualTo(Set.of(SourceConfig.class.getPermittedSubclasses()));
    }

    @ParameterizedTest
    @MethodSource("types")
    void eachTypeIsReadWithItsShapeAndNamesEveryFileItReads(String type, @TempDir Path dir) throws IOException {
        RunConfig config = parse(type, dir);
        SourceConfig source = config.data().train();

        assertThat(source.type()).isEqualTo(type);
        try (DataLoader.Loaded loaded = DataLoader.load(config, config.data(), "data")) {
            assertThat(loaded.train().size()).as("samples read").isPositive();
            assertThat(loaded.train().shape().values()).as("values per sample").isPositive();
            assertThat(loaded.train().task()).isEqualTo(source.task());
            assertThat(loaded.train().isImage()).isEqualTo(source.isImage());
        }
        List<String> named = namedPaths(source);
        assertThat(source.paths()).as("every path the config names").containsExactlyInAnyOrderElementsOf(named);
        for (String p : source.paths()) {
            assertThat(config.resolve(p)).exists();
        }
    }

    @ParameterizedTest
    @MethodSource("types")
    void aClusterChecksEveryFileTheSourceReads(String type, @TempDir Path dir) throws IOException {
        RunConfig config = parse(type, dir);

        List<String> shipped;
        try (StageSetup setup = new StageSetup(config, null)) {
            shipped = ClusterSessions.shardData(config, setup.plan(0)).files().stream()
                    .map(DataFile::path)
                    .toList();
        }

        assertThat(shipped)
                .containsExactlyInAnyOrderElementsOf(config.data().train().paths().stream()
                        .map(p -> config.resolve(p).toString())
                        .toList());
    }

    private static RunConfig parse(String type, Path dir) throws IOException {
        ValidationResult parsed = ConfigParser.parse(SourceFixtures.runConfig(SourceFixtures.source(type, dir)), dir);
        assertThat(parsed.problems()).as("the fixture of " + type).isEmpty();
        return parsed.config();
    }

    /** The files the config names: the record's components written as paths, an archive's array as its file. */
    private static List<String> namedPaths(SourceConfig source) {
        return Arrays.stream(source.getClass().getRecordComponents())
                .filter(EverySourceTypeTest::isPath)
                .flatMap(c -> values(c, source).stream())
                .map(NumpySource::fileOf)
                .distinct()
                .toList();
    }

    private static boolean isPath(RecordComponent c) {
        // the writer's path serializer marks every component that names a file or folder (a numpy source's inputs:
        // their type's)
        JsonSerialize s = c.getAccessor().getAnnotation(JsonSerialize.class);
        return s != null && s.using().getSimpleName().equals("ConfigPathSerializer")
                || c.getType() == NumpyInputs.class;
    }

    private static List<String> values(RecordComponent c, SourceConfig source) {
        try {
            Object v = c.getAccessor().invoke(source);
            if (v instanceof NumpyInputs inputs) {
                return List.copyOf(inputs.byName().values());
            }
            return v == null ? List.of() : List.of((String) v);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
