package org.traindeck.engine;

import java.nio.file.Files;
import java.nio.file.Path;

/** Locations in the repository that tests read (tests run with the module folder as working directory). */
public final class TestPaths {

    private TestPaths() {}

    public static Path repoRoot() {
        Path here = Path.of("").toAbsolutePath();
        return Files.exists(here.resolve("sample-configs")) ? here : here.getParent();
    }

    public static Path sampleConfigs() {
        return repoRoot().resolve("sample-configs");
    }

    public static Path badConfigs() {
        return repoRoot().resolve("engine/src/test/resources/bad-configs");
    }
}
