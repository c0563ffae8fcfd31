package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.traindeck.engine.model.GraphFixture.assertLearns;
import static org.traindeck.engine.model.GraphFixture.row;
import static org.traindeck.engine.model.GraphFixture.shapeOf;
import static org.traindeck.engine.model.GraphFixture.train;

import java.nio.file.Path;
import java.util.List;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.model.graph.GraphProblemsException;

/**
 * Zoo architectures: built for the data's images with the task's head in place of their own, their size limits
 * refused by the validator with the size that works. Configurations only (no parameters made) except two small trainings.
 */
class ZooModelsTest {

    @TempDir
    Path dir;

    private static String config(String architecture, int side, int channels) {
        return """
                {"name": "z", "model": {"type": "zoo", "architecture": "%s"},
                 "data": {"train": {"type": "synthetic", "samples": 10, "imageShape": [%d, %d, %d], "numClasses": 5}},
                 "stages": [{"epochs": 1, "batchSize": 5}]}
                """.formatted(architecture, side, side, channels);
    }

    private ModelCheck.Checked check(String architecture, int side, int channels) {
        return ModelCheck.checkWithSummary(ConfigParser.parse(config(architecture, side, channels), dir));
    }

    @Test
    void aZooConfigWrittenBackReadsAsTheSameConfig() {
        RunConfig read = ConfigParser.parse(config("squeezenet", 32, 3), dir).orThrow();
        assertThat(ConfigWriter.modelJson(read.model()))
                .isEqualTo("{\"type\":\"zoo\",\"architecture\":\"squeezenet\"}");
        assertThat(ConfigParser.parse(ConfigWriter.toJson(read), dir).orThrow()).isEqualTo(read);
    }

    @Test
    void anUnknownArchitectureIsRefusedByTheSchema() {
        ConfigProblem p =
                ConfigParser.parse(config("resnet18", 32, 3), dir).errors().get(0);
        assertThat(p.path()).isEqualTo("model.architecture");
        assertThat(p.message()).contains("'resnet50'");
    }

    @Test
    void resnet50At224BuildsThroughTheValidatorWithAFiveClassHead() {
        ModelCheck.Checked c = check("resnet50", 224, 3);

        assertThat(c.result().errors()).isEmpty();
        ModelSummary s = c.summary();
        assertThat(shapeOf(s, "input")).isEqualTo("[224, 224, 3]");
        assertThat(row(s, "output").type()).isEqualTo("OutputLayer");
        assertThat(shapeOf(s, "output")).isEqualTo("[5]");
        assertThat(row(s, "output").parameters()).isEqualTo(2048 * 5 + 5);
        // ResNet50 as published: 25.6M with its 1000-class head, 23.5M without it
        assertThat(s.parameters()).isBetween(23_000_000L, 24_000_000L);
    }

    @ParameterizedTest
    @CsvSource({
        "alexnet, 64, 3",
        "darknet19, 32, 3",
        "lenet, 28, 1",
        "simplecnn, 48, 3",
        "squeezenet, 32, 3",
        "vgg16, 32, 3",
        "vgg19, 32, 3",
        "xception, 32, 3"
    })
    void everyClassifierGetsTheTasksHead(String architecture, int side, int channels) {
        ModelInput input = new ModelInput(InputType.convolutional(side, side, channels), Task.CLASSIFICATION, 5);
        ModelConfig.Zoo zoo = new ModelConfig.Zoo(architecture);
        ComputationGraphConfiguration conf = ModelCompiler.configuration(zoo, input, 1);
        ModelSummary s = ModelSummary.of(conf, input, zoo);

        assertThat(shapeOf(s, "output")).isEqualTo("[5]");
        assertThat(conf.getNetworkOutputs()).containsExactly(ModelCompiler.OUTPUT);
        assertThat(ComputationGraphConfiguration.fromJson(conf.toJson())).isEqualTo(conf);
    }

    @Test
    void imagesTooSmallForResnet50AreRefusedWithTheSmallestThatWorks() {
        ValidationResult r = check("resnet50", 32, 3).result();
        assertThat(r.errors()).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("model.architecture");
            assertThat(p.message())
                    .isEqualTo(
                            "resnet50 needs images of at least 69×69 (it down-samples them on the way), but the data's "
                                    + "are 32×32×3: resize them, or choose a smaller architecture (simplecnn, lenet) or a graph");
        });
    }

    @Test
    void unetSidesMustBeMultiplesOf16() {
        ConfigProblem p = check("unet", 40, 1).result().errors().get(0);
        assertThat(p.path()).isEqualTo("model.architecture");
        assertThat(p.message())
                .contains("must be multiples of 16, but the data's images are 40×40×1: resize or pad them to 48×48");
    }

    @Test
    void unetOnClassLabelsSaysItSegments() {
        ConfigProblem p = check("unet", 32, 1).result().errors().get(0);
        assertThat(p.path()).isEqualTo("model.architecture");
        assertThat(p.message())
                .startsWith(
                        "unet outputs a class for every pixel, so it trains segmentation data, not classification data");
    }

    @Test
    void aClassifierCannotSegment() {
        ModelInput masks = new ModelInput(InputType.convolutional(32, 32, 1), Task.SEGMENTATION, 3);
        GraphProblemsException e = catchThrowableOfType(
                () -> ModelCompiler.configuration(new ModelConfig.Zoo("vgg16"), masks, 1),
                GraphProblemsException.class);
        assertThat(e.problems().get(0).message())
                .contains(
                        "vgg16 gives one output per image (classes or values), so it cannot train segmentation: use \"unet\"");
    }

    @Test
    void unetSegmentsIntoTheTasksClassesAndTrains() {
        ModelInput masks = new ModelInput(InputType.convolutional(16, 16, 1), Task.SEGMENTATION, 3);
        ModelConfig.Zoo unet = new ModelConfig.Zoo("unet");
        ComputationGraphConfiguration conf = ModelCompiler.configuration(unet, masks, 1);
        ModelSummary s = ModelSummary.of(conf, masks, unet);

        assertThat(shapeOf(s, "head")).isEqualTo("[16, 16, 3]");
        assertThat(row(s, "output").type()).isEqualTo("CnnLossLayer");
        assertThat(shapeOf(s, "output")).isEqualTo("[16, 16, 3]");
        List<Double> losses = train(conf, masks, 2);
        assertThat(losses).allSatisfy(l -> assertThat(l).isFinite());
    }

    @Test
    void simpleCnnTrainsOnSmallImages() {
        ModelInput input = new ModelInput(InputType.convolutional(16, 16, 1), Task.CLASSIFICATION, 3);
        assertLearns(train(ModelCompiler.configuration(new ModelConfig.Zoo("simplecnn"), input, 1), input, 8));
    }
}
