package org.traindeck.bench;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.Callable;

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
        resnetPeer(home, out, threads, only, report);
        boolean convnets = BenchMain.wanted(only, "peer") || only.contains("convnets");
        if (ConvSamplePeers.EPOCHS < 2) {
            throw new IllegalArgumentException("-Dtraindeck.bench.convEpochs=" + ConvSamplePeers.EPOCHS
                    + ": at least 2 (the first epoch of every run is not measured)");
        }
        ConvRounds rounds = new ConvRounds(
                home,
                out,
                Integer.getInteger("traindeck.bench.convPairs", 3),
                !"false".equals(System.getProperty("traindeck.bench.convReference")),
                !"false".equals(System.getProperty("traindeck.bench.convWholeMachine")),
                report);
        if (convnets || only.contains("unet")) {
            rounds.compare(
                    "the U-Net sample against PyTorch, 1 thread and the whole machine…",
                    () -> ConvSampleNets.unet(home),
                    "peer-unet",
                    rounds.reference());
        }
        if (convnets || only.contains("unet-deconv")) {
            rounds.compare(
                    "the U-Net sample with deconv2d up-sampling against PyTorch, 1 thread and the whole machine…",
                    () -> ConvSampleNets.unetDeconv(home),
                    "peer-unet-deconv",
                    rounds.reference());
        }
        if (convnets || only.contains("lenet-graph")) {
            rounds.compare(
                    "a LeNet graph against PyTorch, 1 thread and the whole machine…",
                    ConvSampleNets::lenet,
                    "peer-lenet",
                    rounds.reference());
        }
        if (convnets || only.contains("volumes")) {
            rounds.compare(
                    "the 3D autoencoder sample against PyTorch, 1 thread and the whole machine…",
                    () -> ConvSampleNets.autoencoder(home),
                    "peer-volumes",
                    false);
        }
        if (convnets || only.contains("resnet18")) {
            rounds.compare(
                    "a ResNet-18 at 32×32 against PyTorch, 1 thread and the whole machine…",
                    () -> ConvSampleNets.resnet18(Integer.getInteger("traindeck.bench.resnet18Samples", 256)),
                    "peer-resnet18",
                    false);
        }
        largeConvPeers(home, out, rounds.pairs(), rounds.wholeMachine(), only, report);
    }

    /** The ResNet-style network with batchNorm against PyTorch, and its kernel against DL4J's layer. */
    private static void resnetPeer(Path home, Path out, int threads, Set<String> only, Report report) throws Exception {
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
    }

    /** What every convolutional sample's pairs share: how many, and whether DL4J's layers and cpu:N run too. */
    private record ConvRounds(Path home, Path out, int pairs, boolean reference, boolean wholeMachine, Report report) {

        /** Says what runs, then builds the sample (which may write its data) and compares it in {@code folder}. */
        void compare(String says, Callable<ConvSampleNets.Sample> sample, String folder, boolean withReference)
                throws Exception {
            System.out.println(says);
            ConvSamplePeers.compare(
                    sample.call(), home, out.resolve(folder), pairs, withReference, wholeMachine, report);
        }
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
