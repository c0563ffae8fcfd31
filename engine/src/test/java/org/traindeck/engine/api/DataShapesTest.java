package org.traindeck.engine.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.SourceFixtures;

/** A summary's data is read once and again when one of the files its source names changes, for every source type. */
class DataShapesTest {

    @Test
    void anImageAddedToAMaskSourceIsReadOnTheNextSummary(@TempDir Path dir) throws IOException {
        RunConfig config = ConfigParser.parse(SourceFixtures.runConfig(SourceFixtures.source("masks", dir)), dir)
                .orThrow();
        DataShapes shapes = new DataShapes();
        shapes.of(config);
        shapes.of(config);
        assertThat(shapes.reads()).as("two summaries of one data config").isEqualTo(1);

        Path masks = dir.resolve("masks/labels");
        Files.copy(dir.resolve("masks/images/s0.png"), dir.resolve("masks/images/s8.png"));
        Files.copy(masks.resolve("s0.png"), masks.resolve("s8.png"));
        // a folder's stamp is its modification time: one later than the first read's, however fast this machine is
        for (Path folder : new Path[] {dir.resolve("masks/images"), masks}) {
            Files.setLastModifiedTime(
                    folder,
                    FileTime.fromMillis(Files.getLastModifiedTime(folder).toMillis() + 10_000));
        }
        shapes.of(config);

        assertThat(shapes.reads()).as("the mask source's folders changed").isEqualTo(2);
    }
}
