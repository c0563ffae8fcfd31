package org.traindeck.engine.train;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.sinks.RunFolder;

/** The config a resume trains with, kept in the run folder as config.resume-N beside the run's first config.json. */
final class ResumeConfigFile {

    private ResumeConfigFile() {}

    /** Writes the next free config.resume-N of {@code runDir}; a resume never overwrites an earlier one's. */
    static Path writeNext(Path runDir, RunConfig config) throws IOException {
        int attempt = 1;
        while (Files.exists(RunFolder.of(runDir).resumeConfig(attempt))) {
            attempt++;
        }
        return write(RunFolder.of(runDir).resumeConfig(attempt), config);
    }

    /** Written beside its name first, so that a full disk leaves no empty or partial config.resume behind. */
    private static Path write(Path file, RunConfig config) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.writeString(tmp, ConfigWriter.toJsonWithAbsolutePaths(config), StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            return file;
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            String why = String.valueOf(e.getMessage());
            throw new IOException(
                    "cannot write " + file.getFileName() + " in " + file.getParent() + ": "
                            + (why.contains("No space left") ? "the disk is full" : why) + "; nothing was changed",
                    e);
        }
    }
}
