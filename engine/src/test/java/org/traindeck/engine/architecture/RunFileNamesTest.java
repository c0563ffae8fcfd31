package org.traindeck.engine.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.sinks.RunFolder;

/** RunFolder owns every name of a run's files: no other production file of the engine, app or cluster spells one. */
class RunFileNamesTest {

    /** Names that mean a run's file wherever they are quoted. */
    private static final List<String> FILE_NAMES = List.of(
            RunFolder.CONFIG,
            RunFolder.RESUME_CONFIG_PREFIX,
            RunFolder.METRICS_JSONL,
            RunFolder.METRICS_CSV,
            RunFolder.LOG,
            RunFolder.STATUS,
            RunFolder.ENERGY,
            RunFolder.HISTOGRAMS,
            RunFolder.EVALUATION,
            RunFolder.EVALUATION_EMA,
            RunFolder.VOCABULARY,
            RunFolder.INPUT_RANGE,
            RunFolder.RUN_ID,
            RunFolder.LOCK,
            RunFolder.TENSORBOARD);

    /** Words that are also JSON keys or command names: a run's folder only where a path is made or compared. */
    private static final List<String> FOLDER_NAMES = List.of(RunFolder.SAMPLES, RunFolder.CHECKPOINTS, RunFolder.CRASH);

    /** Quoted for another reason: a checkpoint archive's entry, the user data folder's sample configs. */
    private static final Map<String, Set<String>> ELSEWHERE = Map.of(
            "CheckpointArchive.java", Set.of(RunFolder.CONFIG),
            "CheckpointFiles.java", Set.of(RunFolder.CONFIG),
            "TrainDeckApp.java", Set.of(RunFolder.SAMPLES));

    @Test
    void theListCoversEveryNameRunFolderHas() {
        List<String> all = new ArrayList<>(FILE_NAMES);
        all.addAll(FOLDER_NAMES);
        assertThat(all).containsAll(RunFolder.NAMES);
    }

    @Test
    void noProductionFileOutsideRunFolderSpellsARunFileName() throws IOException {
        List<String> found = new ArrayList<>();
        for (String module : List.of("engine", "app", "cluster")) {
            Path sources = TestPaths.repoRoot().resolve(module).resolve("src/main/java");
            try (Stream<Path> files = Files.walk(sources)) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    String fileName = file.getFileName().toString();
                    if (fileName.equals("RunFolder.java")) {
                        continue;
                    }
                    Set<String> allowed = ELSEWHERE.getOrDefault(fileName, Set.of());
                    List<String> lines = Files.readAllLines(file);
                    for (int i = 0; i < lines.size(); i++) {
                        for (String name : FILE_NAMES) {
                            if (!allowed.contains(name) && lines.get(i).contains("\"" + name + "\"")) {
                                found.add(file + ":" + (i + 1) + " spells " + name);
                            }
                        }
                        for (String name : FOLDER_NAMES) {
                            if (!allowed.contains(name)
                                    && Pattern.compile("(resolve|equals)\\(\"" + Pattern.quote(name) + "\"\\)")
                                            .matcher(lines.get(i))
                                            .find()) {
                                found.add(file + ":" + (i + 1) + " spells " + name);
                            }
                        }
                    }
                }
            }
        }
        assertThat(found).as("ask RunFolder for the path instead").isEmpty();
    }
}
