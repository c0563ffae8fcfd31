package org.traindeck.app.config;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(JsonSplice.replace(TEXT, "stages[0].optimizer.learningRate",
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
        assertThat(JsonSplice.replace(TEXT, "stages[0].clipNorm", JsonNodeFactory.instance.numberNode(1))).isNull();
        assertThat(JsonSplice.replace(TEXT, "stages[2].epochs", JsonNodeFactory.instance.numberNode(1))).isNull();
        assertThat(JsonSplice.replace("{\"seed\": ", "seed", JsonNodeFactory.instance.numberNode(1))).isNull();
    }

    @Test
    void decimalsAreReadAndShownAsTyped() {
        assertThat(JsonTree.toText(JsonTree.fromText("0.00005"))).isEqualTo("0.00005");
        assertThat(JsonTree.toText(JsonTree.get(JsonTree.parse(TEXT), "stages[0].optimizer.learningRate"))).isEqualTo("0.00005");
        assertThat(JsonTree.write(JsonTree.parse(TEXT))).contains("\"learningRate\": 0.00005");
    }

    @Test
    void aWrittenTreeLooksAsPeopleLayOutAConfig() {
        assertThat(JsonTree.write(JsonTree.parse("{\"name\": \"a\\\"b\", \"model\": {\"hidden\": [128, 64]}, \"stages\": [{\"epochs\": 1}], \"nccl\": {}}")))
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
}
