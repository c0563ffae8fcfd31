package org.traindeck.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.traindeck.engine.data.numpy.NpyHeaderWriter;

/**
 * The convolutional networks at the sizes users train them, for {@link ConvSamplePeers} (their PyTorch peers in
 * bench/src/main/python/pytorch_peer.py): a U-Net at 128×128 with 64 base filters (the lithography simulator's size)
 * and the volumes-autoencoder sample's network at 64³ (the 4×A100 guide's first stage). Their data is made here, as
 * .npy files in the bench's scratch folder: nothing is downloaded, and the samples' own data has other sizes.
 */
final class LargeConvNets {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The U-Net's widths: four levels of the classic U-Net, each pooled once, and its bottleneck. */
    private static final int[] UNET_WIDTHS = {64, 128, 256, 512, 1024};

    private static final int UNET_SIZE = 128;
    private static final int VOLUME_SIZE = 64;

    private LargeConvNets() {}

    /**
     * The classic U-Net's depth (Ronneberger et al.: levels of 64, 128, 256 and 512 channels and a 1024-channel
     * bottleneck at 1/16 of the image, 8×8 here), built as shapes-unet.json is: 3×3 convolutions with relu, 2×2 max
     * pools, nearest upsampling joined to the level's features by concat (upsampled first), a per-pixel 2-class head.
     * {@code samples} random 128×128×1 layouts whose target is the layout itself (printed or not), batch 4.
     */
    static ConvSampleNets.Sample unet128(Path out, int samples) throws IOException {
        Path x = out.resolve("unet128-x.npy");
        Path y = out.resolve("unet128-y.npy");
        writeLayouts(x, y, samples, UNET_SIZE);
        String data = "{\"type\": \"numpy\", \"task\": \"segmentation\", \"inputs\": \"" + json(x)
                + "\", \"targets\": \"" + json(y) + "\", \"numClasses\": 2, \"scale\": 0.00392156862745098}";
        List<String> layers = new ArrayList<>();
        List<String> skips = new ArrayList<>();
        double forward = 0;
        int in = 1;
        int size = UNET_SIZE;
        int levels = UNET_WIDTHS.length - 1;
        for (int level = 0; level < levels; level++) {
            int width = UNET_WIDTHS[level];
            forward += convPair(layers, "enc" + (level + 1), in, width, size);
            skips.add("enc" + (level + 1) + "b");
            layers.add(layer("down" + (level + 1), "maxPool2d"));
            in = width;
            size /= 2;
        }
        forward += convPair(layers, "bottom", in, UNET_WIDTHS[levels], size);
        in = UNET_WIDTHS[levels];
        for (int level = levels; level >= 1; level--) {
            int width = UNET_WIDTHS[level - 1];
            size *= 2;
            layers.add(layer("up" + level, "upsample2d"));
            layers.add("{\"name\": \"skip" + level + "\", \"type\": \"concat\", \"inputs\": [\"up" + level + "\", \""
                    + skips.get(level - 1) + "\"]}");
            forward += convPair(layers, "dec" + level, in + width, width, size);
            in = width;
        }
        forward += 2.0 * UNET_SIZE * UNET_SIZE * in * 2;
        String model = "{\"type\": \"graph\", \"layers\": [" + String.join(", ", layers) + "]}";
        return new ConvSampleNets.Sample(
                "unet128",
                "U-Net 128×128×1 (64–512 channels in 4 levels, a 1024 bottleneck; " + samples
                        + " synthetic layouts, batch 4)",
                new EngineBench.Workload("U-Net 128", model, data, samples, 4),
                3 * forward);
    }

    /** Two 3×3 convolutions with relu named {@code prefix}a and b; their forward FLOPs per example. */
    private static double convPair(List<String> layers, String prefix, int in, int width, int size) {
        layers.add(conv(prefix + "a", width));
        layers.add(conv(prefix + "b", width));
        return 2.0 * size * size * 9 * ((double) in * width + (double) width * width);
    }

    private static String conv(String name, int filters) {
        return "{\"name\": \"" + name + "\", \"type\": \"conv2d\", \"filters\": " + filters
                + ", \"kernel\": 3, \"activation\": \"relu\"}";
    }

    private static String layer(String name, String type) {
        return "{\"name\": \"" + name + "\", \"type\": \"" + type + "\", \"size\": 2}";
    }

    /**
     * volumes-autoencoder.json's model on {@code samples} synthetic 64³×1 volumes (boxes on a dark background), batch
     * 4: at 64³ a batch of 16 as the sample's would hold 1 GiB per 16-channel activation.
     */
    static ConvSampleNets.Sample autoencoder64(Path home, Path out, int samples) throws IOException {
        Path x = out.resolve("volumes64-x.npy");
        writeVolumes(x, samples, VOLUME_SIZE);
        String data = "{\"type\": \"numpy\", \"task\": \"reconstruction\", \"inputs\": \"" + json(x)
                + "\", \"scale\": 0.00392156862745098}";
        String model = JSON.readTree(
                        home.resolve("sample-configs/volumes-autoencoder.json").toFile())
                .get("model")
                .toString();
        int s = VOLUME_SIZE;
        double forward = conv3(s, 1, 16)
                + conv3(s, 16, 16)
                + conv3(s / 2, 16, 4)
                + conv3(s, 4, 16)
                + conv3(s, 16, 16)
                + 2.0 * s * s * s * 16;
        return new ConvSampleNets.Sample(
                "volumes64",
                "volumes-autoencoder.json's 3D autoencoder at 64³×1 (" + samples + " synthetic volumes, batch 4)",
                new EngineBench.Workload("3D autoencoder 64³", model, data, samples, 4),
                3 * forward);
    }

    private static double conv3(int size, int in, int out) {
        return 2.0 * size * size * size * in * out * 27;
    }

    private static String json(Path p) {
        return p.toAbsolutePath().toString().replace("\\", "/");
    }

    /** Bytes [n, size, size, 1]: a few bright rectangles on dark; the masks [n, size, size] mark them (class 1). */
    private static void writeLayouts(Path images, Path masks, int n, int size) throws IOException {
        byte[] x = new byte[n * size * size];
        byte[] y = new byte[x.length];
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < n; i++) {
            for (int r = 0; r < 12; r++) {
                int top = random.nextInt(size - 8);
                int left = random.nextInt(size - 8);
                int h = 4 + random.nextInt(Math.min(32, size - top - 4));
                int w = 4 + random.nextInt(Math.min(32, size - left - 4));
                for (int row = top; row < top + h; row++) {
                    for (int col = left; col < left + w; col++) {
                        y[(i * size + row) * size + col] = 1;
                    }
                }
            }
            for (int p = i * size * size; p < (i + 1) * size * size; p++) {
                x[p] = (byte) ((y[p] == 1 ? 200 : 30) + random.nextInt(40));
            }
        }
        write(images, new long[] {n, size, size, 1}, x);
        write(masks, new long[] {n, size, size}, y);
    }

    /** Bytes [n, size, size, size, 1]: a few bright boxes on a dark, noisy background. */
    private static void writeVolumes(Path volumes, int n, int size) throws IOException {
        int voxels = size * size * size;
        byte[] x = new byte[n * voxels];
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < n; i++) {
            int base = i * voxels;
            for (int v = 0; v < voxels; v++) {
                x[base + v] = (byte) (20 + random.nextInt(20));
            }
            for (int b = 0; b < 6; b++) {
                int[] from = {random.nextInt(size - 8), random.nextInt(size - 8), random.nextInt(size - 8)};
                int edge = 4 + random.nextInt(16);
                for (int z = from[0]; z < Math.min(size, from[0] + edge); z++) {
                    for (int r = from[1]; r < Math.min(size, from[1] + edge); r++) {
                        for (int c = from[2]; c < Math.min(size, from[2] + edge); c++) {
                            x[base + (z * size + r) * size + c] = (byte) 200;
                        }
                    }
                }
            }
        }
        write(volumes, new long[] {n, size, size, size, 1}, x);
    }

    private static void write(Path file, long[] shape, byte[] values) throws IOException {
        Files.createDirectories(file.getParent());
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(file))) {
            NpyHeaderWriter.write("|u1", shape, o);
            o.write(values);
        }
    }
}
