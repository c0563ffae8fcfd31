package org.traindeck.engine.config.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.ModelConfig;

/** The schema the engine bundles is docs/run-config.schema.json, and its choice lists are the validator's. */
class ConfigSchemaTest {

    @Test
    void theBundledSchemaIsTheDocumentedOne() throws Exception {
        assertThat(ConfigSchema.json())
                .isEqualTo(new ObjectMapper()
                        .readTree(Files.readString(TestPaths.repoRoot().resolve("docs/run-config.schema.json"))));
    }

    @Test
    void choiceListsComeFromTheSchemaAndMatchTheValidatorsOwn() {
        assertThat(ConfigSchema.choices("model.type"))
                .containsExactly("mlp", "lenet", "resnet", "graph", "vit", "gpt", "zoo");
        assertThat(ConfigSchema.choices("data.train.type"))
                .containsExactlyInAnyOrder("csv", "idx", "images", "masks", "numpy", "text", "synthetic");
        assertThat(ConfigSchema.choices("stages[].schedule.type")).containsExactly("constant", "step", "warmupCosine");
        assertThat(ConfigSchema.choices("stages[].optimizer.type"))
                .containsExactly("adam", "adamw", "sgd", "nesterovs", "rmsprop");
        assertThat(ConfigSchema.choices("parallel.mode")).containsExactly("sync", "averaging", "shared_gradients");
        assertThat(ConfigSchema.choices("checkpoint.monitor"))
                .containsExactly(
                        "val/loss",
                        "val/accuracy",
                        "val/mse",
                        "val/mae",
                        "val/pixel_accuracy",
                        "val/mean_iou",
                        "val/psnr",
                        "val/perplexity",
                        "val/projection_error",
                        "train/epoch_loss",
                        "val_ema/loss",
                        "val_ema/accuracy",
                        "val_ema/mse",
                        "val_ema/mae",
                        "val_ema/pixel_accuracy",
                        "val_ema/mean_iou",
                        "val_ema/psnr",
                        "val_ema/perplexity");
        assertThat(ConfigSchema.choices("model.activation"))
                .containsExactlyElementsOf(Arrays.stream(ModelConfig.Activation.values())
                        .map(a -> a.json)
                        .toList());
        assertThat(ConfigSchema.choices("stages[].precision")).containsExactly("float32", "float16");
    }

    @Test
    void defaultsAndHintsAreReadForAnyStageAndFromASectionsDefault() {
        assertThat(ConfigSchema.defaultText("stages[3].batchSize")).isEqualTo("32");
        assertThat(ConfigSchema.defaultText("stages[0].schedule.type"))
                .as("from the schedule's default object")
                .isEqualTo("constant");
        assertThat(ConfigSchema.defaultText("model.hidden")).isEqualTo("[256, 128]");
        assertThat(ConfigSchema.defaultText("stages[0].name"))
                .as("computed from the stage's place")
                .isNull();
        assertThat(ConfigSchema.defaultText("model.type")).as("required").isNull();
        assertThat(ConfigSchema.hint("stages[0].optimizer.learningRate"))
                .isEqualTo("A number > 0 and ≤ 10. Default: 0.001.");
        assertThatThrownBy(() -> ConfigSchema.defaultText("stages[0].nope")).hasMessageContaining("no stages[0].nope");
    }
}
