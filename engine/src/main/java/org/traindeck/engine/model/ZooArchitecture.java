package org.traindeck.engine.model;

import java.util.Arrays;
import java.util.List;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration.GraphBuilder;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.zoo.model.AlexNet;
import org.deeplearning4j.zoo.model.Darknet19;
import org.deeplearning4j.zoo.model.LeNet;
import org.deeplearning4j.zoo.model.ResNet50;
import org.deeplearning4j.zoo.model.SimpleCNN;
import org.deeplearning4j.zoo.model.SqueezeNet;
import org.deeplearning4j.zoo.model.UNet;
import org.deeplearning4j.zoo.model.VGG16;
import org.deeplearning4j.zoo.model.VGG19;
import org.deeplearning4j.zoo.model.Xception;

/**
 * The architectures of DL4J's model zoo that build offline, each as a graph without its own output: what it takes
 * from the zoo, which of its nodes are its head (dropped), the node the task's head then follows, and whether that
 * node already gives one score per class (a conv to the classes and a global pool), so only the loss is added.
 */
enum ZooArchitecture {
    ALEXNET("alexnet", 0, Kind.CLASSIFIER) {
        @Override
        Trunk trunk(int[] chw, int outputs, long seed) {
            return fromLayers(
                    AlexNet.builder()
                            .inputShape(chw)
                            .numClasses(outputs)
                            .seed(seed)
                            .build()
                            .conf(),
                    1);
        }
    },
    DARKNET19("darknet19", 0, Kind.SCORES) {
        @Override
        Trunk trunk(int[] chw, int outputs, long seed) {
            return fromGraph(
                    Darknet19.builder()
                            .inputShape(chw)
                            .numClasses(outputs)
                            .seed(seed)
                            .build()
                            .conf(),
                    "globalpooling",
                    "softmax",
                    "loss");
        }
    },
    LENET("lenet", 0, Kind.CLASSIFIER) {
        @Override
        Trunk trunk(int[] chw, int outputs, long seed) {
            return fromLayers(
                    LeNet.builder()
                            .inputShape(chw)
                            .numClasses(outputs)
                            .seed(seed)
                            .build()
                            .conf(),
                    1);
        }
    },
    RESNET50("resnet50", 0, Kind.CLASSIFIER) {
        @Override
        Trunk trunk(int[] chw, int outputs, long seed) {
            GraphBuilder g = ResNet50.builder()
                    .inputShape(chw)
                    .numClasses(outputs)
                    .seed(seed)
                    .build()
                    .graphBuilder();
            return drop(g, "avgpool", "output");
        }
    },
    SIMPLECNN("simplecnn", 0, Kind.SCORES) {
        @Override
        Trunk trunk(int[] chw, int outputs, long seed) {
            // its last layer is a softmax activation (it has no loss of its own)
            return fromLayers(
                    SimpleCNN.builder()
                            .inputShape(chw)
                            .numClasses(outputs)
                            .seed(seed)
                            .build()
                            .conf(),
                    1);
        }
    },
    SQUEEZENET("squeezenet", 0, Kind.SCORES) {
        @Override
        Trunk trunk(int[] chw, int outputs, long seed) {
            GraphBuilder g = SqueezeNet.builder()
                    .inputShape(chw)
                    .numClasses(outputs)
                    .seed(seed)
                    .build()
                    .graphBuilder();
            return drop(g, "avg_pool", "softmax", "loss");
        }
    },
    UNET("unet", 16, Kind.PER_PIXEL) {
        @Override
        Trunk trunk(int[] chw, int outputs, long seed) {
            GraphBuilder g = UNet.builder()
                    .inputShape(chw)
                    .numClasses(outputs)
                    .seed(seed)
                    .build()
                    .graphBuilder();
            // conv10 is its one-class (foreground) projection: the task's head projects to its own classes
            return drop(g, "conv9-3", "conv10", "output");
        }
    },
    VGG_16("vgg16", 0, Kind.CLASSIFIER) {
        @Override
        Trunk trunk(int[] chw, int outputs, long seed) {
            return fromGraph(
                    VGG16.builder()
                            .inputShape(chw)
                            .numClasses(outputs)
                            .seed(seed)
                            .build()
                            .conf(),
                    "19",
                    "20");
        }
    },
    VGG_19("vgg19", 0, Kind.CLASSIFIER) {
        @Override
        Trunk trunk(int[] chw, int outputs, long seed) {
            return fromGraph(
                    VGG19.builder()
                            .inputShape(chw)
                            .numClasses(outputs)
                            .seed(seed)
                            .build()
                            .conf(),
                    "21",
                    "22");
        }
    },
    XCEPTION("xception", 0, Kind.CLASSIFIER) {
        @Override
        Trunk trunk(int[] chw, int outputs, long seed) {
            GraphBuilder g = Xception.builder()
                    .inputShape(chw)
                    .numClasses(outputs)
                    .seed(seed)
                    .build()
                    .graphBuilder();
            return drop(g, "avg_pool", "predictions");
        }
    };

    /** What the architecture's last kept node gives. */
    enum Kind {
        /** Features per image: the task's head (a dense output layer) follows. */
        CLASSIFIER,
        /** One score per output already: only the loss follows. */
        SCORES,
        /** A feature map the input's size: the per-pixel head follows. */
        PER_PIXEL
    }

    /** A zoo graph without its own head, and its last node. */
    record Trunk(GraphBuilder graph, String last) {}

    final String json;
    /** The height and width must be multiples of this (0: no such rule). */
    final int multiple;

    final Kind kind;

    ZooArchitecture(String json, int multiple, Kind kind) {
        this.json = json;
        this.multiple = multiple;
        this.kind = kind;
    }

    /** The zoo's graph for images of {@code chw} (channels, height, width), without its head. */
    abstract Trunk trunk(int[] chw, int outputs, long seed);

    static ZooArchitecture of(String json) {
        return Arrays.stream(values())
                .filter(a -> a.json.equals(json))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no zoo architecture " + json));
    }

    private static Trunk drop(GraphBuilder g, String last, String... head) {
        if (g.getNetworkInputs().isEmpty()) {
            // some zoo models add their input in init(), not in graphBuilder(); their first layers take "input"
            g.addInputs(Heads.INPUT);
        }
        for (String name : head) {
            if (!name.equals(last)) {
                g.removeVertex(name);
            }
        }
        return new Trunk(g, last);
    }

    /** A zoo model that comes as a built graph configuration: its nodes, with the input shape left to the compiler. */
    private static Trunk fromGraph(ComputationGraphConfiguration conf, String last, String... head) {
        GraphBuilder g = new GraphBuilder(conf, new NeuralNetConfiguration.Builder(conf.getDefaultConfiguration()));
        for (GraphVertex v : g.getVertices().values()) {
            if (v instanceof LayerVertex layer) {
                // the preprocessors were chosen for the zoo's own input type (VGG's is a flat vector)
                layer.setPreProcessor(null);
            }
        }
        return drop(g, last, head);
    }

    /** A zoo model that comes as a layer stack: the same layers as a chain, less the last {@code dropLast}. */
    private static Trunk fromLayers(MultiLayerConfiguration conf, int dropLast) {
        List<NeuralNetConfiguration> layers = conf.getConfs();
        GraphBuilder g =
                new NeuralNetConfiguration.Builder(layers.get(0)).graphBuilder().addInputs(Heads.INPUT);
        String last = Heads.INPUT;
        for (int i = 0; i < layers.size() - dropLast; i++) {
            String name = "layer" + i;
            g.addLayer(name, layers.get(i).getLayer(), last);
            last = name;
        }
        return new Trunk(g, last);
    }
}
