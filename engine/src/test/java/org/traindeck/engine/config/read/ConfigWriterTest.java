package org.traindeck.engine.config.read;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;

/** What ConfigWriter's databind output looks like where a reader or a stored checkpoint depends on its exact form. */
class ConfigWriterTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** Checkpoints store these bytes as the model's fingerprint: a change would refuse every older checkpoint. */
    @Test
    void theModelFingerprintKeepsItsBytes() {
        assertThat(ConfigWriter.modelJson(new ModelConfig.Mlp(List.of(64, 32), ModelConfig.Activation.RELU, 0.1)))
                .isEqualTo("{\"type\":\"mlp\",\"activation\":\"relu\",\"hidden\":[64,32],\"dropout\":0.1}");
        assertThat(ConfigWriter.modelJson(
                        new ModelConfig.LeNet(List.of(20, 50), 5, 500, ModelConfig.Activation.LEAKYRELU, 0.0, true)))
                .isEqualTo(
                        "{\"type\":\"lenet\",\"activation\":\"leakyrelu\",\"channels\":[20,50],\"kernelSize\":5,\"dense\":500,"
                                + "\"dropout\":0.0,\"batchNorm\":true}");
        assertThat(ConfigWriter.modelJson(new ModelConfig.ResNet(2, 16, ModelConfig.Activation.GELU)))
                .isEqualTo("{\"type\":\"resnet\",\"activation\":\"gelu\",\"blocks\":2,\"channels\":16}");
    }

    @Test
    void everyPartOfAFullConfigIsWrittenAsTheFormatSpellsIt() throws IOException {
        Files.writeString(dir.resolve("train.csv"), "1,2,0\n3,4,1\n");
        RunConfig config = ConfigParser.parse("""
                {"name": "full", "outputDir": "out", "devices": [1, 0],
                 "model": {"type": "mlp", "hidden": [8]},
                 "data": {"train": {"type": "csv", "path": "train.csv", "task": "regression", "limit": 2}, "validationSplit": 0.5},
                 "stages": [{"epochs": 1, "batchSize": 2, "optimizer": {"type": "nesterovs", "momentum": 0.8},
                             "schedule": {"type": "warmupCosine", "warmupEpochs": 0.5},
                             "data": {"train": {"type": "synthetic", "task": "regression", "features": 2}}},
                            {"epochs": 1, "schedule": {"type": "constant"}}],
                 "nccl": {"NCCL_DEBUG": "INFO", "custom": {"MY_VAR": "x"}}}
                """, dir).orThrow();

        String written = ConfigWriter.toJson(config);
        JsonNode json = JSON.readTree(written);

        assertThat(json.get("devices").toString()).isEqualTo("[1,0]");
        assertThat(json.get("outputDir").asText()).isEqualTo("out");
        assertThat(json.at("/data/train/path").asText()).isEqualTo("train.csv");
        assertThat(json.at("/data/train/limit").asInt()).isEqualTo(2);
        assertThat(json.at("/data/validationSplit").asDouble()).isEqualTo(0.5);
        assertThat(json.at("/data").has("validation"))
                .as("no validation source: the key is left out")
                .isFalse();
        JsonNode stage = json.get("stages").get(0);
        assertThat(stage.get("optimizer").toString())
                .as("only the options nesterovs takes")
                .isEqualTo("{\"type\":\"nesterovs\",\"learningRate\":0.001,\"momentum\":0.8,\"weightDecay\":0.0}");
        assertThat(stage.get("schedule").toString())
                .isEqualTo("{\"type\":\"warmupCosine\",\"warmupEpochs\":0.5,\"minLearningRate\":0.0}");
        assertThat(stage.at("/data/train").toString())
                .as("regression: no numClasses; features, not imageShape")
                .isEqualTo(
                        "{\"type\":\"synthetic\",\"task\":\"regression\",\"samples\":2000,\"features\":2,\"noise\":0.5}");
        assertThat(stage.has("gradientClipping")).isTrue();
        assertThat(stage.has("augmentation")).isFalse();
        assertThat(json.get("stages").get(1).get("schedule").toString()).isEqualTo("{\"type\":\"constant\"}");
        assertThat(json.get("nccl").toString()).isEqualTo("{\"NCCL_DEBUG\":\"INFO\",\"custom\":{\"MY_VAR\":\"x\"}}");
        assertThat(written).endsWith("\n");
        assertThat(ConfigParser.parse(written, dir).orThrow()).isEqualTo(config);
    }

    @Test
    void aCopyForTheRunFolderNamesEveryPathAbsolutelyAndFindsTheSameFiles() throws IOException {
        Files.writeString(dir.resolve("train.csv"), "1,2,0\n3,4,1\n");
        RunConfig config = ConfigParser.parse("""
                {"name": "paths", "outputDir": "../out", "model": {"type": "mlp"},
                 "data": {"train": {"type": "csv", "path": "./train.csv"}},
                 "stages": [{"epochs": 1, "data": {"train": {"type": "csv", "path": "train.csv"}}}]}
                """, dir).orThrow();

        JsonNode json = JSON.readTree(ConfigWriter.toJsonWithAbsolutePaths(config));

        assertThat(json.get("outputDir").asText())
                .isEqualTo(dir.getParent().resolve("out").toString());
        assertThat(json.at("/data/train/path").asText())
                .isEqualTo(dir.resolve("train.csv").toString());
        assertThat(json.at("/stages/0/data/train/path").asText())
                .isEqualTo(dir.resolve("train.csv").toString());
        assertThat(ConfigWriter.toJson(config))
                .as("the plain copy keeps what the user wrote")
                .contains("\"../out\"", "\"./train.csv\"");
        assertThat(json.has("baseDir")).isFalse();
        assertThat(json.has("nccl")).as("no NCCL settings: no section").isFalse();
    }
}
