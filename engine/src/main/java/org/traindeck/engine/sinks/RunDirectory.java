package org.traindeck.engine.sinks;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Creates a run's folder without ever reusing one: a second run named "digits" gets "digits-2", and so on. */
public final class RunDirectory {

    private RunDirectory() {}

    public static Path create(Path outputDir, String runName) throws IOException {
        Files.createDirectories(outputDir);
        for (int n = 1; n < 10_000; n++) {
            Path candidate = outputDir.resolve(n == 1 ? runName : runName + "-" + n);
            try {
                return Files.createDirectory(candidate);
            } catch (FileAlreadyExistsException e) {
                // taken by an earlier run: try the next name
            }
        }
        throw new IOException("too many runs named " + runName + " in " + outputDir);
    }
}
