package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/**
 * The model section: a layer graph the user writes ({@code graph}), or a named architecture. Every one compiles to one
 * DL4J computation graph (org.traindeck.engine.model).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = ModelConfig.Mlp.class, name = "mlp"),
    @JsonSubTypes.Type(value = ModelConfig.LeNet.class, name = "lenet"),
    @JsonSubTypes.Type(value = ModelConfig.ResNet.class, name = "resnet"),
    @JsonSubTypes.Type(value = ModelConfig.Graph.class, name = "graph"),
    @JsonSubTypes.Type(value = ModelConfig.Vit.class, name = "vit"),
    @JsonSubTypes.Type(value = ModelConfig.Gpt.class, name = "gpt"),
    @JsonSubTypes.Type(value = ModelConfig.Zoo.class, name = "zoo")
})
public sealed interface ModelConfig {

    String type();

    /** Where the starting weights come from, or null: the model's own initialisation. */
    InitConfig init();

    /** Hands this model to the visitor's method for its variant: a new variant fails to compile until every visitor takes it. */
    <R> R accept(Visitor<R> visitor);

    /** Something done to each kind of model, one method per variant. */
    interface Visitor<R> {
        R mlp(Mlp m);

        R lenet(LeNet m);

        R resnet(ResNet m);

        R graph(Graph m);

        R vit(Vit m);

        R gpt(Gpt m);

        R zoo(Zoo m);
    }

    enum Activation {
        RELU("relu"),
        LEAKYRELU("leakyrelu"),
        TANH("tanh"),
        SIGMOID("sigmoid"),
        GELU("gelu"),
        SWISH("swish");

        @JsonValue
        public final String json;

        Activation(String json) {
            this.json = json;
        }
    }

    /** Fully connected layers; works on any data (image data is flattened). */
    @JsonPropertyOrder({"activation", "hidden", "dropout", "kernel", "init"})
    record Mlp(
            List<Integer> hidden,
            Activation activation,
            double dropout,
            @JsonInclude(JsonInclude.Include.NON_NULL) String kernel,
            @JsonInclude(JsonInclude.Include.NON_NULL) InitConfig init)
            implements ModelConfig {
        public Mlp {
            hidden = List.copyOf(hidden);
        }

        /** Kernel left to TrainDeck (null is not written, so the model's fingerprint keeps its old bytes). */
        public Mlp(List<Integer> hidden, Activation activation, double dropout) {
            this(hidden, activation, dropout, null, null);
        }

        public Mlp(List<Integer> hidden, Activation activation, double dropout, String kernel) {
            this(hidden, activation, dropout, kernel, null);
        }

        @Override
        public String type() {
            return "mlp";
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.mlp(this);
        }
    }

    /** LeNet-style: conv/pool blocks with the given channel counts, then one dense layer. Needs image data. */
    @JsonPropertyOrder({"activation", "channels", "kernelSize", "dense", "dropout", "batchNorm", "init"})
    record LeNet(
            List<Integer> channels,
            int kernelSize,
            int dense,
            Activation activation,
            double dropout,
            boolean batchNorm,
            @JsonInclude(JsonInclude.Include.NON_NULL) InitConfig init)
            implements ModelConfig {
        public LeNet {
            channels = List.copyOf(channels);
        }

        public LeNet(
                List<Integer> channels,
                int kernelSize,
                int dense,
                Activation activation,
                double dropout,
                boolean batchNorm) {
            this(channels, kernelSize, dense, activation, dropout, batchNorm, null);
        }

        @Override
        public String type() {
            return "lenet";
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.lenet(this);
        }
    }

    /** A small residual CNN: a stem conv, {@code blocks} residual blocks of two 3×3 convs, global pooling. Needs image data. */
    @JsonPropertyOrder({"activation", "blocks", "channels", "init"})
    record ResNet(
            int blocks,
            int channels,
            Activation activation,
            @JsonInclude(JsonInclude.Include.NON_NULL) InitConfig init) implements ModelConfig {
        public ResNet(int blocks, int channels, Activation activation) {
            this(blocks, channels, activation, null);
        }

        @Override
        public String type() {
            return "resnet";
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.resnet(this);
        }
    }

    /**
     * A layer graph: named nodes, each taking the outputs of {@code inputs} (by default the node before it, so a plain
     * list is a sequential model); the last node feeds the head, which the task decides (classes, values, a mask, the
     * input again, the next token).
     */
    @JsonPropertyOrder({"layers", "head", "init"})
    record Graph(
            List<LayerSpec> layers,
            Head head,
            @JsonInclude(JsonInclude.Include.NON_NULL) InitConfig init) implements ModelConfig {
        public Graph {
            layers = List.copyOf(layers);
        }

        public Graph(List<LayerSpec> layers, Head head) {
            this(layers, head, null);
        }

        @Override
        public String type() {
            return "graph";
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.graph(this);
        }
    }

    /** How the graph's output is trained: the loss and the output function, "auto" meaning the task's own. */
    @JsonPropertyOrder({"loss", "activation"})
    record Head(String loss, String activation) {}

    /**
     * A Vision Transformer: patches with learned position embeddings and a class token, {@code depth} pre-norm blocks
     * of multi-head self-attention and an MLP, a layer norm, and the class token into the head.
     */
    @JsonPropertyOrder({
        "patch",
        "width",
        "depth",
        "heads",
        "mlpRatio",
        "classToken",
        "dropout",
        "recompute",
        "kernel",
        "init"
    })
    record Vit(
            int patch,
            int width,
            int depth,
            int heads,
            double mlpRatio,
            boolean classToken,
            double dropout,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean recompute,
            @JsonInclude(JsonInclude.Include.NON_NULL) String kernel,
            @JsonInclude(JsonInclude.Include.NON_NULL) InitConfig init)
            implements ModelConfig {

        public Vit(
                int patch,
                int width,
                int depth,
                int heads,
                double mlpRatio,
                boolean classToken,
                double dropout,
                boolean recompute,
                String kernel) {
            this(patch, width, depth, heads, mlpRatio, classToken, dropout, recompute, kernel, null);
        }

        @Override
        public String type() {
            return "vit";
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.vit(this);
        }
    }

    /**
     * A GPT-style decoder: token and learned position embeddings, {@code depth} pre-norm blocks of causal multi-head
     * self-attention and an MLP, a layer norm, and a next-token head. The vocabulary and context come from the data.
     */
    @JsonPropertyOrder({"width", "depth", "heads", "mlpRatio", "dropout", "recompute", "kernel", "init"})
    record Gpt(
            int width,
            int depth,
            int heads,
            double mlpRatio,
            double dropout,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean recompute,
            @JsonInclude(JsonInclude.Include.NON_NULL) String kernel,
            @JsonInclude(JsonInclude.Include.NON_NULL) InitConfig init)
            implements ModelConfig {

        public Gpt(int width, int depth, int heads, double mlpRatio, double dropout, boolean recompute, String kernel) {
            this(width, depth, heads, mlpRatio, dropout, recompute, kernel, null);
        }

        @Override
        public String type() {
            return "gpt";
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.gpt(this);
        }
    }

    /**
     * A named architecture of DL4J's model zoo (deeplearning4j-zoo), built for the data's image size and channels, its
     * own output replaced by the task's head: classes or values for the classifiers, a class per pixel for unet.
     */
    @JsonPropertyOrder({"architecture", "init"})
    record Zoo(
            String architecture,
            @JsonInclude(JsonInclude.Include.NON_NULL) InitConfig init) implements ModelConfig {
        public Zoo(String architecture) {
            this(architecture, null);
        }

        @Override
        public String type() {
            return "zoo";
        }

        @Override
        public <R> R accept(Visitor<R> visitor) {
            return visitor.zoo(this);
        }
    }
}
