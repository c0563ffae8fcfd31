package org.traindeck.engine.weights;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.use.ModelExport;
import org.traindeck.engine.use.TrainedModel;
import org.traindeck.engine.use.export.ExportFormat;

/**
 * Starting weights that cannot be used stop {@code traindeck train} and {@code validate} before anything runs: exit
 * code 2, one line located at the config's {@code init} (its line and column) naming the file and what is wrong, no
 * stack trace, no run folder.
 */
class InitRefusalsTest {

    @TempDir
    static Path dir;

    @BeforeAll
    static void exportAThreeClassModel() throws Exception {
        RunResult trained = TrainingRun.open(RunRequest.of(
                        ConfigParser.parse(StartingWeightsTest.GRAPH.formatted("three", 3, "", "", 3), dir)
                                .orThrow()))
                .runHere();
        ModelExport.write(
                TrainedModel.open(trained.runDir(), false),
                ExportFormat.SAFETENSORS,
                dir.resolve("three.safetensors"),
                false);
    }

    private static Path config(String name, String init) throws Exception {
        String json = StartingWeightsTest.GRAPH.formatted(name, 4, "", ",\n \"init\": " + init, 5);
        Path file = dir.resolve(name + ".json");
        Files.writeString(file, json);
        return file;
    }

    private static void assertRefused(Path config, String... says) {
        for (String command : new String[] {"validate", "train"}) {
            MainAccess.Result r = MainAccess.run(command, config.toString());
            assertThat(r.exitCode())
                    .as(command + ": " + r.stdout() + r.stderr())
                    .isEqualTo(2);
            String all = r.stdout() + r.stderr();
            assertThat(all)
                    .contains("model.init.from")
                    .contains("(line 6, column")
                    .contains(says);
            assertThat(all).doesNotContain("\tat org.").doesNotContain("Exception");
        }
        assertThat(dir.resolve("out").resolve(config.getFileName().toString().replace(".json", "")))
                .doesNotExist();
    }

    @Test
    void aHeadOfAnotherShapeIsRefusedWhenStrict() throws Exception {
        assertRefused(
                config("strict", "{\"from\": \"three.safetensors\"}"),
                "three.safetensors does not fit the model",
                "output.weight: [3, 8] in the file, [5, 8] in the model",
                "\"strict\": false");
    }

    @Test
    void aMissingFileIsRefused() throws Exception {
        assertRefused(config("missing", "{\"from\": \"nowhere.safetensors\"}"), "nowhere.safetensors does not exist");
    }

    @Test
    void aHeaderThatClaimsMoreBytesThanTheFileHasIsRefused() throws Exception {
        byte[] header = "{\"w\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16]}}"
                .getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(8 + header.length + 8).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(header.length).put(header).putLong(0);
        Files.write(dir.resolve("short.safetensors"), b.array());
        assertRefused(
                config("hostile", "{\"from\": \"short.safetensors\", \"strict\": false}"),
                "short.safetensors: byte 8: tensor 'w': its data_offsets [0,16]",
                "lie outside the file's 8 bytes of data");
    }
}
