package org.traindeck.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.traindeck.engine.train.Nd4jRuntime;

/**
 * Runs the benchmarks and prints one table (also written to bench/target/results.md): all of them, or the groups
 * named on the command line ({@code ./traindeck bench scaling peer}).
 */
public final class BenchMain {

    private BenchMain() {}

    /**
     * The groups: overhead, onednn, layers (the per-layer figures' cost and the Layers view's drawing), peer, scaling,
     * loader, pipeline, chart, library, startup; none named runs them all. "small-peers" is the part of "peer" that
     * compares the MLP and LeNets, "resnet" the part that compares a ResNet-style network with batch norm
     * (-Dtraindeck.bench.resnetPairs=N; -Dtraindeck.bench.resnetSamples=N examples an epoch;
     * -Dtraindeck.bench.resnetReference=false leaves out DL4J's BatchNormalization), "convnets" the part that compares
     * the U-Net sample and a LeNet graph, each also with pooling, upsampling and concat on DL4J's layers, the 3D
     * autoencoder sample and a ResNet-18 at 32×32 ("unet", "lenet-graph", "volumes" or "resnet18": one of them;
     * "unet-deconv" the U-Net with 2×2 stride-2 deconv2d up-sampling, its deconv2d also on DL4J's layer;
     * -Dtraindeck.bench.convPairs=N, -Dtraindeck.bench.convReference=false leaves out DL4J's layers,
     * -Dtraindeck.bench.convEpochs=N epochs a run (4 by default, the first not measured),
     * -Dtraindeck.bench.convWholeMachine=false the whole-machine rows,
     * -Dtraindeck.bench.resnet18Samples=N); "unet128" and "volumes64" (only when named) a U-Net at 128×128 with 64 base
     * filters and the 3D autoencoder at 64³ (-Dtraindeck.bench.largeConvSamples=N images or volumes, 8 by default),
     * "transformers" the part that compares the ViT and GPT samples ("vit" or "gpt": one
     * of them; -Dtraindeck.bench.transformerPairs=N), "workstation" the part that compares a ViT and a GPT at workstation size ("vit-ws" or "gpt-ws": one of
     * them; -Dtraindeck.bench.workstationSamples=N and -Dtraindeck.bench.workstationPairs=N for a quick try);
     * "xray16" the part that compares stage 1 of the x-ray cascade sample, a diffusion ViT over volumes
     * (-Dtraindeck.bench.xraySamples=N phantoms an epoch, -Dtraindeck.bench.xrayPairs=N);
     * "kernels" (only when named) the samples on the own transformer kernel against
     * "kernel": "dl4j"; "profile" (only when named) prints ND4J's op profile of a ViT and a GPT step; "syncbn" the scaling group's
     * synchronized BatchNorm row alone (-Dtraindeck.bench.syncbnPairs=N); "memory" (only when named) gradient checkpointing's peak
     * memory and step time, without and with recompute (-Dtraindeck.bench.memoryPairs=N;
     * -Dtraindeck.bench.memoryCases=gpt, volumes, unet or xray for one of its four models).
     */
    static boolean wanted(Set<String> only, String group) {
        return only.isEmpty() || only.contains(group);
    }

    /** Engine overhead, oneDNN and layer health. */
    private static double engineGroups(Path home, Path out, int threads, Set<String> only, Report report)
            throws Exception {
        double mlp = Double.NaN;
        if (wanted(only, "overhead") || wanted(only, "pipeline")) {
            System.out.println("engine overhead…");
            mlp = EngineBench.overhead(EngineBench.MLP, out.resolve("mlp"), 9, report);
            EngineBench.overhead(EngineBench.LENET, out.resolve("lenet"), 7, report);
        }
        if (wanted(only, "onednn")) {
            System.out.println("oneDNN against DL4J's own convolutions…");
            EngineBench.oneDnn(EngineBench.LENET, out.resolve("onednn-lenet"), 5, report);
            EngineBench.oneDnn(EngineBench.LENET_LARGE, out.resolve("onednn-large"), 3, report);
        }
        if (wanted(only, "layers")) {
            System.out.println("per-layer health figures…");
            // -Dtraindeck.bench.quick=true: two shorter pairs (25 steps an epoch, figures at steps 50 and 100)
            boolean quick = Boolean.getBoolean("traindeck.bench.quick");
            LayerHealthBench.run(home, out.resolve("layers"), quick ? 2 : 3, quick ? 1600 : 3200, report);
        }
        return mlp;
    }

    /** Multi-worker scaling, synchronized BatchNorm and gradient checkpointing's memory. */
    private static void scalingGroups(Path home, Path out, int threads, Set<String> only, Report report)
            throws Exception {
        if (wanted(only, "scaling")) {
            System.out.println("multi-worker scaling…");
            EngineBench.scaling(EngineBench.MLP, out.resolve("scale-mlp"), 5, "≥ 1.15×", report);
            EngineBench.scaling(EngineBench.LENET, out.resolve("scale-lenet"), 5, "≥ 1.5×", report);
        }
        if (wanted(only, "scaling") || only.contains("syncbn")) {
            System.out.println("synchronized BatchNorm on 2 workers…");
            EngineBench.syncBatchNorm(
                    EngineBench.LENET_BN,
                    out.resolve("scale-syncbn"),
                    Integer.parseInt(System.getProperty("traindeck.bench.syncbnPairs", "5")),
                    report);
        }
        // only when named: its child runs (three models, each without and with) add minutes to the whole bench
        if (only.contains("memory")) {
            System.out.println("gradient checkpointing: peak memory and step time without and with recompute…");
            int pairs = Integer.getInteger("traindeck.bench.memoryPairs", 3);
            String cases = System.getProperty("traindeck.bench.memoryCases", "gpt,volumes,unet,xray");
            for (String c : cases.split(",")) {
                if (!List.of("gpt", "volumes", "unet", "xray").contains(c.trim())) {
                    throw new IllegalArgumentException("-Dtraindeck.bench.memoryCases: unknown case '" + c.trim()
                            + "' (the cases: gpt, volumes, unet, xray, separated by commas)");
                }
            }
            if (cases.contains("gpt")) {
                MemoryBench.compare(MemoryBench.gpt(home, 256), out.resolve("memory-gpt"), pairs, report);
            }
            if (cases.contains("volumes")) {
                MemoryBench.compare(MemoryBench.autoencoder(home, 128), out.resolve("memory-volumes"), pairs, report);
            }
            if (cases.contains("unet")) {
                MemoryBench.compare(MemoryBench.unet(home, 256), out.resolve("memory-unet"), pairs, report);
            }
            if (cases.contains("xray")) {
                MemoryBench.compare(MemoryBench.xray(home, 128), out.resolve("memory-xray"), pairs, report);
            }
        }
    }

    /** Data loading, the metric and chart pipelines, the layers view, the library and start-up. */
    private static void pipelineGroups(Path home, Path out, int threads, Set<String> only, Report report, double mlp)
            throws Exception {
        if (wanted(only, "loader")) {
            System.out.println("data loading against the ViT sample's training…");
            int samples = Integer.parseInt(System.getProperty("traindeck.bench.loaderSamples", "4096"));
            LoaderBench.run(
                    home,
                    out.resolve("loader"),
                    samples,
                    Integer.parseInt(System.getProperty("traindeck.bench.loaderPairs", "5")),
                    report);
        }
        if (wanted(only, "pipeline")) {
            System.out.println("metric pipeline…");
            PipelineBench.run(out.resolve("pipeline"), mlp, EngineBench.MLP.batch(), report);
        }
        if (wanted(only, "chart")) {
            System.out.println("chart pipeline…");
            ChartBench.run(report);
        }
        if (wanted(only, "layers")) {
            System.out.println("layers view…");
            LayersBench.run(report);
        }
        if (wanted(only, "library")) {
            System.out.println("run library on a 1 GB metrics.jsonl…");
            LibraryBench.run(out.resolve("library"), report);
        }
        if (wanted(only, "startup")) {
            System.out.println("start-up…");
            StartupBench.run(home, report);
        }
    }

    public static void main(String[] args) throws Exception {
        Path home = Path.of(System.getProperty("traindeck.home", System.getProperty("user.dir")))
                .toAbsolutePath();
        Path out = Files.createTempDirectory("traindeck-bench-");
        int threads = Integer.parseInt(System.getenv().getOrDefault("OMP_NUM_THREADS", "1"));
        Report report = new Report();
        long start = System.nanoTime();
        System.out.println(
                "TrainDeck benchmarks: " + Runtime.getRuntime().availableProcessors() + " cores, OMP_NUM_THREADS="
                        + threads + ", Java " + System.getProperty("java.version") + "; scratch folder " + out);

        Set<String> only = Set.of(args);
        Nd4jRuntime.init();
        String oneDnn = Nd4jRuntime.oneDnnUnavailableReason();
        System.out.println("oneDNN: " + (oneDnn == null ? "on" : "off, " + oneDnn));
        double mlp = engineGroups(home, out, threads, only, report);
        PeerGroups.smallPeers(home, out, threads, only, report);
        PeerGroups.convPeers(home, out, threads, only, report);
        PeerGroups.transformerPeers(home, out, threads, only, report);
        scalingGroups(home, out, threads, only, report);
        pipelineGroups(home, out, threads, only, report, mlp);

        String machine = String.format(
                Locale.ROOT,
                "%s, %d cores, %.0f GiB, Java %s, OMP_NUM_THREADS=%d",
                System.getProperty("os.name") + " " + System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(),
                ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize()
                        / 1073741824.0,
                System.getProperty("java.version"),
                threads);
        String table = "Measured " + LocalDate.now() + " on " + machine
                + String.format(Locale.ROOT, " (%.1f min in all).%n%n", (System.nanoTime() - start) / 60e9)
                + report.markdown();
        System.out.println();
        System.out.println(table);
        Path results = home.resolve("bench/target/results.md");
        Files.createDirectories(results.getParent());
        Files.writeString(results, table);
        System.out.println("(also in " + results + ")");
        System.exit(0);
    }
}
