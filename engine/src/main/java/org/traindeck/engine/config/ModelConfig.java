package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.List;

/** The built-in architectures, each built as a DL4J configuration in code. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = ModelConfig.Mlp.class, name = "mlp"),
        @JsonSubTypes.Type(value = ModelConfig.LeNet.class, name = "lenet"),
        @JsonSubTypes.Type(value = ModelConfig.ResNet.class, name = "resnet")})
public sealed interface ModelConfig {

    String type();

    Activation activation();

    enum Activation {
        RELU("relu"), LEAKYRELU("leakyrelu"), TANH("tanh"), SIGMOID("sigmoid"), GELU("gelu"), SWISH("swish");

        @JsonValue
        public final String json;

        Activation(String json) {
            this.json = json;
        }
    }

    /** Fully connected layers; works on any data (image data is flattened). */
    @JsonPropertyOrder({"activation", "hidden", "dropout"})
    record Mlp(List<Integer> hidden, Activation activation, double dropout) implements ModelConfig {
        public Mlp {
            hidden = List.copyOf(hidden);
        }

        @Override
        public String type() {
            return "mlp";
        }
    }

    /** LeNet-style: conv/pool blocks with the given channel counts, then one dense layer. Needs image data. */
    @JsonPropertyOrder({"activation", "channels", "kernelSize", "dense", "dropout", "batchNorm"})
    record LeNet(List<Integer> channels, int kernelSize, int dense, Activation activation, double dropout,
                 boolean batchNorm) implements ModelConfig {
        public LeNet {
            channels = List.copyOf(channels);
        }

        @Override
        public String type() {
            return "lenet";
        }
    }

    /** A small residual CNN: a stem conv, {@code blocks} residual blocks of two 3×3 convs, global pooling. Needs image data. */
    @JsonPropertyOrder({"activation", "blocks", "channels"})
    record ResNet(int blocks, int channels, Activation activation) implements ModelConfig {
        @Override
        public String type() {
            return "resnet";
        }
    }
}
