package org.traindeck.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** One value changes; every other character of the user's text stays. */
class JsonSpliceTest {

    private static final String TEXT = """
            {
              "name":"mine",  "seed": 7,
              "model": { "type": "mlp", "hidden": [128,64] },
              "stages": [
                { "epochs": 3, "optimizer": { "type": "adam", "learningRate": 0.00005 } },
                { "epochs": 2, "name": "fine" }
              ]
            }
            """;

    @Test
    void aScalarAStringAndANestedValueAreReplacedInPlace() {
        assertThat(JsonSplice.replace(TEXT, "seed", JsonNodeFactory.instance.numberNode(8)))
                .isEqualTo(TEXT.replace("\"seed\": 7", "\"seed\": 8"));
        assertThat(JsonSplice.replace(TEXT, "name", JsonNodeFactory.instance.textNode("yours")))
                .isEqualTo(TEXT.replace("\"name\":\"mine\"", "\"name\":\"yours\""));
        assertThat(JsonSplice.replace(TEXT, "stages[1].epochs", JsonNodeFactory.instance.numberNode(5)))
                .isEqualTo(TEXT.replace("{ \"epochs\": 2,", "{ \"epochs\": 5,"));
        assertThat(JsonSplice.replace(
                        TEXT,
                        "stages[0].optimizer.learningRate",
                        JsonNodeFactory.withExactBigDecimals(true).numberNode(new BigDecimal("0.00010"))))
                .isEqualTo(TEXT.replace("0.00005", "0.00010"));
    }

    @Test
    void aListOrAnObjectIsReplacedWhole() {
        assertThat(JsonSplice.replace(TEXT, "model.hidden", JsonTree.listFromText("256, 128, 64")))
                .isEqualTo(TEXT.replace("[128,64]", "[256, 128, 64]"));
        assertThat(JsonSplice.replace(TEXT, "stages[1]", JsonTree.parse("{\"epochs\": 1}")))
                .isEqualTo(TEXT.replace("{ \"epochs\": 2, \"name\": \"fine\" }", "{\"epochs\": 1}"));
    }

    @Test
    void anAbsentValueOrBrokenTextIsLeftToTheTreeEdit() {
        assertThat(JsonSplice.replace(TEXT, "stages[0].clipNorm", JsonNodeFactory.instance.numberNode(1)))
                .isNull();
        assertThat(JsonSplice.replace(TEXT, "stages[2].epochs", JsonNodeFactory.instance.numberNode(1)))
                .isNull();
        assertThat(JsonSplice.replace("{\"seed\": ", "seed", JsonNodeFactory.instance.numberNode(1)))
                .isNull();
    }

    @Test
    void decimalsAreReadAndShownAsTyped() {
        assertThat(JsonTree.toText(JsonTree.fromText("0.00005"))).isEqualTo("0.00005");
        assertThat(JsonTree.toText(JsonTree.get(JsonTree.parse(TEXT), "stages[0].optimizer.learningRate")))
                .isEqualTo("0.00005");
        assertThat(JsonTree.write(JsonTree.parse(TEXT))).contains("\"learningRate\": 0.00005");
    }

    @Test
    void aWrittenTreeLooksAsPeopleLayOutAConfig() {
        assertThat(
                        JsonTree.write(
                                JsonTree.parse(
                                        "{\"name\": \"a\\\"b\", \"model\": {\"hidden\": [128, 64]}, \"stages\": [{\"epochs\": 1}], \"nccl\": {}}")))
                .isEqualTo("""
                        {
                          "name": "a\\"b",
                          "model": {
                            "hidden": [128, 64]
                          },
                          "stages": [
                            {
                              "epochs": 1
                            }
                          ],
                          "nccl": {}
                        }
                        """);
    }

    /** A compact config as people write them: nested one-line objects, members on shared lines. */
    private static final String COMPACT = """
            {"name": "c", "seed": 7,
             "model": {"type": "vit", "patch": 4, "width": 64},
             "stages": [{"epochs": 1, "schedule": {"type": "warmupCosine", "warmupEpochs": 0.3}}],
             "checkpoint": {}}
            """;

    @Test
    void aMissingMemberIsAddedAfterTheLastOneSpacedAsItsSiblings() {
        assertThat(JsonSplice.insert(COMPACT, "model.depth", JsonNodeFactory.instance.numberNode(2)))
                .isEqualTo(COMPACT.replace("\"width\": 64}", "\"width\": 64, \"depth\": 2}"));
        assertThat(JsonSplice.insert(COMPACT, "stages[0].batchSize", JsonNodeFactory.instance.numberNode(8)))
                .isEqualTo(COMPACT.replace("0.3}}]", "0.3}, \"batchSize\": 8}]"));
        assertThat(JsonSplice.insert(COMPACT, "checkpoint.keepLast", JsonNodeFactory.instance.numberNode(2)))
                .isEqualTo(COMPACT.replace("{}}", "{\"keepLast\": 2}}"));
        // the root's members are a line each after the first line: a new one goes on its own line, indented the same
        assertThat(JsonSplice.insert(COMPACT, "outputDir", JsonNodeFactory.instance.textNode("runs")))
                .isEqualTo(COMPACT.replace("{}}", "{},\n \"outputDir\": \"runs\"}"));
        assertThat(JsonSplice.insert(TEXT, "stages[1].batchSize", JsonNodeFactory.instance.numberNode(8)))
                .isEqualTo(TEXT.replace("\"name\": \"fine\" }", "\"name\": \"fine\", \"batchSize\": 8 }"));
        assertThat(JsonSplice.insert(TEXT, "outputDir", JsonNodeFactory.instance.textNode("runs")))
                .isEqualTo(TEXT.replace("  ]\n}", "  ],\n  \"outputDir\": \"runs\"\n}"));
    }

    @Test
    void aMemberIsRemovedWithItsComma() {
        assertThat(JsonSplice.remove(COMPACT, "model.width")).isEqualTo(COMPACT.replace(", \"width\": 64", ""));
        assertThat(JsonSplice.remove(COMPACT, "model.type")).isEqualTo(COMPACT.replace("\"type\": \"vit\", ", ""));
        assertThat(JsonSplice.remove(COMPACT, "stages[0].schedule"))
                .isEqualTo(COMPACT.replace(", \"schedule\": {\"type\": \"warmupCosine\", \"warmupEpochs\": 0.3}", ""));
        assertThat(JsonSplice.remove(TEXT, "seed")).isEqualTo(TEXT.replace(",  \"seed\": 7", ""));
        assertThat(JsonSplice.remove("{\"a\": {\"b\": 1}}", "a.b")).isEqualTo("{\"a\": {}}");
    }

    @Test
    void anInsertOrRemovalWithNoPlaceForItIsLeftToTheTreeEdit() {
        assertThat(JsonSplice.insert(COMPACT, "model.patch", JsonNodeFactory.instance.numberNode(2)))
                .isNull();
        assertThat(JsonSplice.insert(COMPACT, "data.train.type", JsonNodeFactory.instance.textNode("idx")))
                .isNull();
        assertThat(JsonSplice.insert(COMPACT, "stages[3].epochs", JsonNodeFactory.instance.numberNode(1)))
                .isNull();
        assertThat(JsonSplice.remove(COMPACT, "model.depth")).isNull();
        assertThat(JsonSplice.insert("{\"a\": {} ", "a.b", JsonNodeFactory.instance.numberNode(1)))
                .isNull();
    }

    @Test
    void anElementIsCopiedAppendedAndRemovedAsTyped() {
        String first = "{ \"epochs\": 3, \"optimizer\": { \"type\": \"adam\", \"learningRate\": 0.00005 } }";
        assertThat(JsonSplice.element(TEXT, "stages", 0)).isEqualTo(first);
        assertThat(JsonSplice.append(TEXT, "stages", first))
                .isEqualTo(TEXT.replace("\"fine\" }\n", "\"fine\" },\n    " + first + "\n"));
        assertThat(JsonSplice.append(TEXT, "model.hidden", "32")).isEqualTo(TEXT.replace("[128,64]", "[128,64,32]"));
        assertThat(JsonSplice.removeElement(TEXT, "stages", 0)).isEqualTo(TEXT.replace("    " + first + ",\n", ""));
        assertThat(JsonSplice.removeElement(TEXT, "stages", 1))
                .isEqualTo(TEXT.replace(",\n    { \"epochs\": 2, \"name\": \"fine\" }", ""));
        assertThat(JsonSplice.removeElement(TEXT, "stages", 2)).isNull();
        assertThat(JsonSplice.append(TEXT, "model", "1")).isNull();
    }
}
