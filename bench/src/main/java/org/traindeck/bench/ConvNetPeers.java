package org.traindeck.bench;

import java.nio.file.Path;

/**
 * The convolutional peers with batch norm: a ResNet-style graph at 32×32×3 (six 3×3 convolutions of 64–256 channels,
 * each followed by batchNorm and relu, one residual add, two max pools, global average pooling; batch 64), trained
 * by TrainDeck with the fused batch norm kernel and with DL4J's BatchNormalization ({@code "kernel": "dl4j"}), and by
 * PyTorch (bench/src/main/python/pytorch_peer.py, "resnet": the same network, node for node).
 */
final class ConvNetPeers {

    private ConvNetPeers() {}

    private static final String RESNET_LAYERS = """
            {"type": "graph", "layers": [
              {"name": "stem", "type": "conv2d", "filters": 64, "kernel": 3, "bias": false},
              {"name": "stem_bn", "type": "batchNorm"},
              {"name": "stem_relu", "type": "activation", "function": "relu"},
              {"name": "b1_conv1", "type": "conv2d", "filters": 64, "kernel": 3, "bias": false},
              {"name": "b1_bn1", "type": "batchNorm"},
              {"name": "b1_relu1", "type": "activation", "function": "relu"},
              {"name": "b1_conv2", "type": "conv2d", "filters": 64, "kernel": 3, "bias": false},
              {"name": "b1_bn2", "type": "batchNorm"},
              {"name": "b1_add", "type": "add", "inputs": ["b1_bn2", "stem_relu"]},
              {"name": "b1_relu2", "type": "activation", "function": "relu"},
              {"name": "pool1", "type": "maxPool2d"},
              {"name": "conv3", "type": "conv2d", "filters": 128, "kernel": 3, "bias": false},
              {"name": "bn3", "type": "batchNorm"},
              {"name": "relu3", "type": "activation", "function": "relu"},
              {"name": "pool2", "type": "maxPool2d"},
              {"name": "conv4", "type": "conv2d", "filters": 256, "kernel": 3, "bias": false},
              {"name": "bn4", "type": "batchNorm"},
              {"name": "relu4", "type": "activation", "function": "relu"},
              {"name": "conv5", "type": "conv2d", "filters": 256, "kernel": 3, "bias": false},
              {"name": "bn5", "type": "batchNorm"},
              {"name": "relu5", "type": "activation", "function": "relu"},
              {"name": "gap", "type": "globalPool"}
            ]}""";

    private static final String DATA =
            "{\"type\": \"synthetic\", \"samples\": 512, \"imageShape\": [32, 32, 3], \"numClasses\": 10, \"noise\": 0.5}";

    static final EngineBench.Workload RESNET =
            new EngineBench.Workload("ResNet-style 32×32×3 (64–256 channels, batchNorm)", RESNET_LAYERS, DATA, 512, 64);

    /** The same network with DL4J's BatchNormalization: the kernel's before. */
    static final EngineBench.Workload RESNET_DL4J = new EngineBench.Workload(
            RESNET.name() + ", DL4J's BatchNormalization",
            RESNET_LAYERS.replace("\"type\": \"batchNorm\"", "\"type\": \"batchNorm\", \"kernel\": \"dl4j\""),
            DATA,
            512,
            64);

    /** FLOPs per example: the convolutions and the head (a multiply-add is 2), the backward pass twice the forward. */
    static double resnetFlops() {
        double forward = conv(32, 3, 64)
                + 2 * conv(32, 64, 64)
                + conv(16, 64, 128)
                + conv(8, 128, 256)
                + conv(8, 256, 256)
                + 2.0 * 256 * 10;
        return 3 * forward;
    }

    private static double conv(int size, int in, int out) {
        return 2.0 * size * size * in * out * 9;
    }

    /**
     * Alternated runs: PyTorch, the kernel, DL4J's layer; {@code pairs} rounds on {@code samples} examples (an epoch).
     * Without {@code withReference}, PyTorch and the kernel only: DL4J's BatchNormalization makes a step several times
     * longer.
     */
    static void compare(
            Path out, int pairs, int samples, boolean withReference, Path script, int threads, Report report)
            throws Exception {
        if (withReference) {
            PeerBench.compareWithReference(
                    "resnet",
                    RESNET.withSamples(samples),
                    RESNET_DL4J.withSamples(samples),
                    resnetFlops(),
                    out,
                    pairs,
                    script,
                    threads,
                    "≥ 1×",
                    report);
        } else {
            PeerBench.compare(
                    "resnet", RESNET.withSamples(samples), resnetFlops(), out, pairs, script, threads, "≥ 1×", report);
        }
    }
}
