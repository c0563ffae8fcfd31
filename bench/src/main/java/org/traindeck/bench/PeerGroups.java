package org.traindeck.bench;

import java.nio.file.Path;
import java.util.Set;

/** The groups that compare TrainDeck with PyTorch ({@link BenchMain} names them): small nets, convnets, transformers. */
final class PeerGroups {

    private PeerGroups() {}

    /** The MLP and LeNets against PyTorch. */
    static void smallPeers(Path home, Path out, int threads, Set<String> only, Report report) throws Exception {
        if (BenchMain.wanted(only, "peer") || only.contains("small-peers")) {
            System.out.println("CPU peer…");
            Path script = home.resolve("bench/src/main/python/pytorch_peer.py");
            // epochs of 128–256 steps: the other rows' 16–64 last a fraction of a second, within the JIT's warm-up
            PeerBench.compareWithReference(
                    "mlp",
                    EngineBench.MLP.withSamples(32768),
                    EngineBench.MLP_DL4J.withSamples(32768),
                    SmallNetFlops.mlp(784, new int[] {256, 128}, 10),
                    out.resolve("peer"),
                    5,
                    script,
                    threads,
                    "≥ 1×",
                    report);
            PeerBench.compare(
                    "lenet",
                    EngineBench.LENET.withSamples(8192),
                    SmallNetFlops.lenet(8, 16, 5, 64),
                    out.resolve("peer"),
                    5,
                    script,
                    threads,
                    "≥ 0.5×",
                    report);
            PeerBench.compare(
                    "lenet-large",
                    EngineBench.LENET_LARGE.withSamples(4096),
                    SmallNetFlops.lenet(20, 50, 5, 500),
                    out.resolve("peer"),
                    5,
                    script,
                    threads,
                    "≥ 0.6×",
                    report);
        }
    }

    /** The convolutional networks against PyTorch. */
    static void convPeers(Path home, Path out, int threads, Set<String> only, Report report) throws Exception {
        if (BenchMain.wanted(only, "peer") || only.contains("resnet")) {
            System.out.println(
                    "a ResNet-style network with batchNorm against PyTorch, the kernel against DL4J's layer…");
            ConvNetPeers.compare(
                    out.resolve("peer-resnet"),
                    Integer.getInteger("traindeck.bench.resnetPairs", 3),
                    Integer.getInteger("traindeck.bench.resnetSamples", 512),
                    !"false".equals(System.getProperty("traindeck.bench.resnetReference")),
                    home.resolve("bench/src/main/python/pytorch_peer.py"),
                    threads,
                    report);
        }
        boolean convnets = BenchMain.wanted(only, "peer") || only.contains("convnets");
        int convPairs = Integer.getInteger("traindeck.bench.convPairs", 3);
        boolean convReference = !"false".equals(System.getProperty("traindeck.bench.convReference"));
        boolean convWhole = !"false".equals(System.getProperty("traindeck.bench.convWholeMachine"));
        if (convnets || only.contains("unet")) {
            System.out.println("the U-Net sample against PyTorch, 1 thread and the whole machine…");
            ConvSamplePeers.compare(
                    ConvSampleNets.unet(home),
                    home,
                    out.resolve("peer-unet"),
                    convPairs,
                    convReference,
                    convWhole,
                    report);
        }
        if (convnets || only.contains("unet-deconv")) {
            System.out.println(
                    "the U-Net sample with deconv2d up-sampling against PyTorch, 1 thread and the whole machine…");
            ConvSamplePeers.compare(
                    ConvSampleNets.unetDeconv(home),
                    home,
                    out.resolve("peer-unet-deconv"),
                    convPairs,
                    convReference,
                    convWhole,
                    report);
        }
        if (convnets || only.contains("lenet-graph")) {
            System.out.println("a LeNet graph against PyTorch, 1 thread and the whole machine…");
            ConvSamplePeers.compare(
                    ConvSampleNets.lenet(),
                    home,
                    out.resolve("peer-lenet"),
                    convPairs,
                    convReference,
                    convWhole,
                    report);
        }
        if (convnets || only.contains("volumes")) {
            System.out.println("the 3D autoencoder sample against PyTorch, 1 thread and the whole machine…");
            ConvSamplePeers.compare(
                    ConvSampleNets.autoencoder(home),
                    home,
                    out.resolve("peer-volumes"),
                    convPairs,
                    false,
                    convWhole,
                    report);
        }
        if (convnets || only.contains("resnet18")) {
            System.out.println("a ResNet-18 at 32×32 against PyTorch, 1 thread and the whole machine…");
            ConvSamplePeers.compare(
                    ConvSampleNets.resnet18(Integer.getInteger("traindeck.bench.resnet18Samples", 256)),
                    home,
                    out.resolve("peer-resnet18"),
                    convPairs,
                    false,
                    convWhole,
                    report);
        }
        largeConvPeers(home, out, convPairs, convWhole, only, report);
    }

    /** The networks at the sizes users train, only when named: a pair takes minutes. */
    private static void largeConvPeers(
            Path home, Path out, int convPairs, boolean convWhole, Set<String> only, Report report) throws Exception {
        int largeSamples = Integer.getInteger("traindeck.bench.largeConvSamples", 8);
        if (only.contains("unet128")) {
            System.out.println(
                    "a U-Net at 128×128 with 64 base filters against PyTorch, 1 thread and the whole machine…");
            Path folder = out.resolve("peer-unet128");
            ConvSamplePeers.compare(
                    LargeConvNets.unet128(folder, largeSamples), home, folder, convPairs, false, convWhole, report);
        }
        if (only.contains("volumes64")) {
            System.out.println("the 3D autoencoder at 64³ against PyTorch, 1 thread and the whole machine…");
            Path folder = out.resolve("peer-volumes64");
            ConvSamplePeers.compare(
                    LargeConvNets.autoencoder64(home, folder, largeSamples),
                    home,
                    folder,
                    convPairs,
                    false,
                    convWhole,
                    report);
        }
    }

    /** The transformers and the x-ray cascade's stage 1 against PyTorch; kernels and profiles. */
    static void transformerPeers(Path home, Path out, int threads, Set<String> only, Report report) throws Exception {
        boolean transformers = BenchMain.wanted(only, "peer") || only.contains("transformers");
        int transformerPairs = Integer.getInteger("traindeck.bench.transformerPairs", 3);
        if (transformers || only.contains("vit")) {
            System.out.println("the ViT sample against PyTorch, 1 thread and the whole machine…");
            TransformerPeers.compare(
                    TransformerNets.vit(home), home, out.resolve("peer-vit"), transformerPairs, report);
        }
        if (transformers || only.contains("gpt")) {
            System.out.println("the GPT sample against PyTorch, 1 thread and the whole machine…");
            TransformerPeers.compare(
                    TransformerNets.gpt(home), home, out.resolve("peer-gpt"), transformerPairs, report);
        }
        if (BenchMain.wanted(only, "peer") || only.contains("xray16")) {
            System.out.println(
                    "stage 1 of the x-ray cascade (diffusion) against PyTorch, 1 thread and the whole machine…");
            TransformerPeers.compare(
                    VolumeDiffusionPeer.stage1(home),
                    home,
                    out.resolve("peer-xray16"),
                    Integer.getInteger("traindeck.bench.xrayPairs", 3),
                    report);
        }
        boolean workstation = BenchMain.wanted(only, "peer") || only.contains("workstation");
        int workstationPairs = Integer.getInteger("traindeck.bench.workstationPairs", 3);
        if (workstation || only.contains("gpt-ws")) {
            System.out.println("a GPT at workstation size against PyTorch, 1 thread and the whole machine…");
            TransformerPeers.compare(
                    TransformerNets.gptWorkstation(home), home, out.resolve("peer-gpt-ws"), workstationPairs, report);
        }
        if (workstation || only.contains("vit-ws")) {
            System.out.println("a ViT at workstation size against PyTorch, 1 thread and the whole machine…");
            TransformerPeers.compare(
                    TransformerNets.vitWorkstation(), home, out.resolve("peer-vit-ws"), workstationPairs, report);
        }
        if (only.contains("kernels")) {
            System.out.println("the samples on the own transformer kernel against kernel dl4j, 1 thread…");
            TransformerPeers.kernels(TransformerNets.gpt(home), out.resolve("kernels-gpt"), 3, report);
            TransformerPeers.kernels(TransformerNets.vit(home), out.resolve("kernels-vit"), 3, report);
        }
        if (only.contains("profile")) {
            System.out.println("op profiles of the ViT and GPT samples (one CPU device)…");
            TransformerProfile.run(TransformerNets.vit(home), out.resolve("profile-vit"));
            TransformerProfile.run(TransformerNets.gpt(home), out.resolve("profile-gpt"));
            LayerTimes.run(TransformerNets.vit(home), out.resolve("layers-vit"), 10);
            LayerTimes.run(TransformerNets.gpt(home), out.resolve("layers-gpt"), 10);
        }
    }
}
