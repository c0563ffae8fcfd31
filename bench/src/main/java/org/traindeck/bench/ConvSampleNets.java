package org.traindeck.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The convolutional networks {@link ConvSamplePeers} compares with PyTorch (bench/src/main/python/pytorch_peer.py has
 * each node for node): the shapes-unet and volumes-autoencoder samples' networks (the U-Net also with transposed
 * convolutions for its up-sampling), a LeNet and a ResNet-18, as graphs.
 */
final class ConvSampleNets {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A network, its bench data and the peer script's name for it; {@code flops} per example (convolutions, dense). */
    record Sample(String kind, String name, EngineBench.Workload workload, double flops) {}

    private ConvSampleNets() {}

    /** shapes-unet.json's model on the shapes data (all 1,200 images, no validation, no augmentation), batch 32. */
    static Sample unet(Path home) throws Exception {
        String shapes = home.resolve("data/shapes/shapes.npz")
                .toAbsolutePath()
                .toString()
                .replace("\\", "/");
        String data = "{\"type\": \"numpy\", \"task\": \"segmentation\", \"inputs\": \"" + shapes
                + ":x\", \"targets\": \"" + shapes + ":y\", \"numClasses\": 3, \"scale\": 0.00392156862745098}";
        String model = JSON.readTree(
                        home.resolve("sample-configs/shapes-unet.json").toFile())
                .get("model")
                .toString();
        return new Sample(
                "unet",
                "shapes-unet.json's U-Net (32×32×1, 1,200 images, batch 32)",
                new EngineBench.Workload("U-Net", model, data, 1200, 32),
                unetFlops());
    }

    /**
     * shapes-unet.json's U-Net with each nearest ×2 upsampling replaced by a 2×2 stride-2 deconv2d to half the
     * channels, no activation (PyTorch U-Nets' ConvTranspose2d), on the same data, batch 32.
     */
    static Sample unetDeconv(Path home) throws Exception {
        Sample plain = unet(home);
        ObjectNode model = (ObjectNode) JSON.readTree(plain.workload().model());
        for (JsonNode node : model.withArray("layers")) {
            String name = node.path("name").asText();
            if ("upsample2d".equals(node.path("type").asText())) {
                ObjectNode up = (ObjectNode) node;
                up.remove("size");
                up.put("type", "deconv2d");
                up.put("filters", "up2".equals(name) ? 32 : 16);
                up.put("kernel", 2);
                up.put("stride", 2);
            }
        }
        EngineBench.Workload w = plain.workload();
        double forward = unetFlops() / 3
                - conv(16, 96, 32, 9)
                - conv(32, 48, 16, 9)
                + conv(16, 64, 32, 9)
                + conv(32, 32, 16, 9)
                + conv(8, 64, 32, 4)
                + conv(16, 32, 16, 4);
        return new Sample(
                "unet-deconv",
                "shapes-unet.json's U-Net with 2×2 stride-2 deconv2d up-sampling (32×32×1, 1,200 images, batch 32)",
                new EngineBench.Workload("U-Net, deconv2d", model.toString(), w.data(), w.samples(), w.batch()),
                3 * forward);
    }

    /** The LeNet of the small peers (8, 16 channels, dense 64; synthetic 28×28 images, batch 64) as a graph. */
    static Sample lenet() {
        String model = """
                {"type": "graph", "layers": [
                  {"name": "conv1", "type": "conv2d", "filters": 8, "kernel": 5, "activation": "relu"},
                  {"name": "pool1", "type": "maxPool2d"},
                  {"name": "conv2", "type": "conv2d", "filters": 16, "kernel": 5, "activation": "relu"},
                  {"name": "pool2", "type": "maxPool2d"},
                  {"name": "dense", "type": "dense", "units": 64, "activation": "relu"}
                ]}""";
        int samples = 8192;
        String data = "{\"type\": \"synthetic\", \"samples\": " + samples
                + ", \"imageShape\": [28, 28, 1], \"numClasses\": 10, \"noise\": 0.5}";
        double forward = conv(28, 1, 8, 25) + conv(14, 8, 16, 25) + 2.0 * 784 * 64 + 2.0 * 64 * 10;
        return new Sample(
                "lenet",
                "LeNet 28×28 (8, 16 channels, dense 64; 8,192 synthetic images, batch 64)",
                new EngineBench.Workload("LeNet", model, data, samples, 64),
                3 * forward);
    }

    private static double unetFlops() {
        double forward = conv(32, 1, 16, 9)
                + conv(32, 16, 16, 9)
                + conv(16, 16, 32, 9)
                + conv(16, 32, 32, 9)
                + conv(8, 32, 64, 9)
                + conv(8, 64, 64, 9)
                + conv(16, 96, 32, 9)
                + conv(16, 32, 32, 9)
                + conv(32, 48, 16, 9)
                + conv(32, 16, 16, 9)
                + conv(32, 16, 3, 1);
        return 3 * forward;
    }

    private static double conv(int size, int in, int out, int taps) {
        return 2.0 * size * size * in * out * taps;
    }

    /**
     * volumes-autoencoder.json's model on the volumes data (all 600 16³ volumes, no validation), batch 16: 3×3×3
     * convolutions, a 2×2×2 max pool and upsampling, the reconstruction head (a 1×1×1 convolution, mean squared error).
     */
    static Sample autoencoder(Path home) throws Exception {
        String volumes = home.resolve("data/volumes/volumes.npz")
                .toAbsolutePath()
                .toString()
                .replace("\\", "/");
        String data = "{\"type\": \"numpy\", \"task\": \"reconstruction\", \"inputs\": \"" + volumes
                + ":x\", \"scale\": 0.00392156862745098}";
        String model = JSON.readTree(
                        home.resolve("sample-configs/volumes-autoencoder.json").toFile())
                .get("model")
                .toString();
        double forward = conv3(16, 1, 16)
                + conv3(16, 16, 16)
                + conv3(8, 16, 4)
                + conv3(16, 4, 16)
                + conv3(16, 16, 16)
                + 2.0 * 4096 * 16;
        return new Sample(
                "volumes",
                "volumes-autoencoder.json's 3D autoencoder (16³×1, 600 volumes, batch 16)",
                new EngineBench.Workload("3D autoencoder", model, data, 600, 16),
                3 * forward);
    }

    private static double conv3(int size, int in, int out) {
        return 2.0 * size * size * size * in * out * 27;
    }

    /**
     * A ResNet-18 for 32×32×3 images (as CIFAR's: a 3×3 stem of 64 channels, four stages of two basic blocks of 64,
     * 128, 256 and 512 channels, the last three starting at stride 2 with a 1×1 projection on the shortcut; every
     * convolution without bias and followed by batchNorm; global average pooling), synthetic images, batch 64.
     */
    static Sample resnet18(int samples) {
        List<String> layers = new ArrayList<>();
        layers.add(conv("stem", 64, 3, 1, null));
        layers.add(node("stem_bn", "batchNorm", null));
        layers.add(relu("stem_relu", null));
        String last = "stem_relu";
        double forward = 2.0 * 1024 * 3 * 64 * 9;
        int in = 64;
        int size = 32;
        int[] widths = {64, 128, 256, 512};
        for (int stage = 0; stage < 4; stage++) {
            for (int block = 0; block < 2; block++) {
                int stride = stage > 0 && block == 0 ? 2 : 1;
                int out = widths[stage];
                String p = "s" + (stage + 1) + "b" + (block + 1) + "_";
                size /= stride;
                layers.add(conv(p + "conv1", out, 3, stride, last));
                layers.add(node(p + "bn1", "batchNorm", null));
                layers.add(relu(p + "relu1", null));
                layers.add(conv(p + "conv2", out, 3, 1, null));
                layers.add(node(p + "bn2", "batchNorm", null));
                String shortcut = last;
                forward += 2.0 * size * size * out * 9 * (in + out);
                if (stride != 1 || in != out) {
                    layers.add(conv(p + "proj", out, 1, stride, last));
                    layers.add(node(p + "proj_bn", "batchNorm", null));
                    shortcut = p + "proj_bn";
                    forward += 2.0 * size * size * in * out;
                }
                layers.add("{\"name\": \"" + p + "add\", \"type\": \"add\", \"inputs\": [\"" + p + "bn2\", \""
                        + shortcut + "\"]}");
                layers.add(relu(p + "out", null));
                last = p + "out";
                in = out;
            }
        }
        layers.add(node("gap", "globalPool", null));
        forward += 2.0 * 512 * 10;
        String data = "{\"type\": \"synthetic\", \"samples\": " + samples
                + ", \"imageShape\": [32, 32, 3], \"numClasses\": 10, \"noise\": 0.5}";
        return new Sample(
                "resnet18",
                "ResNet-18 (32×32×3, " + samples + " synthetic images, batch 64)",
                new EngineBench.Workload(
                        "ResNet-18",
                        "{\"type\": \"graph\", \"layers\": [" + String.join(", ", layers) + "]}",
                        data,
                        samples,
                        64),
                3 * forward);
    }

    private static String conv(String name, int filters, int kernel, int stride, String input) {
        return "{\"name\": \"" + name + "\", \"type\": \"conv2d\", \"filters\": " + filters + ", \"kernel\": " + kernel
                + ", \"stride\": " + stride + ", \"bias\": false" + inputs(input) + "}";
    }

    private static String relu(String name, String input) {
        return "{\"name\": \"" + name + "\", \"type\": \"activation\", \"function\": \"relu\"" + inputs(input) + "}";
    }

    private static String node(String name, String type, String input) {
        return "{\"name\": \"" + name + "\", \"type\": \"" + type + "\"" + inputs(input) + "}";
    }

    private static String inputs(String input) {
        return input == null ? "" : ", \"inputs\": [\"" + input + "\"]";
    }
}
