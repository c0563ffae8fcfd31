package org.traindeck.bench;

import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.profiler.OpProfiler;
import org.nd4j.linalg.profiler.ProfilerConfig;
import org.traindeck.engine.train.Nd4jRuntime;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a TrainDeck step of the ViT or GPT sample goes: one run (as the bench's, one CPU device) with ND4J's op
 * profiler timing every native op, then its dashboard (time per op name and per op class). Run it with
 * OMP_NUM_THREADS=1 so that op times are not split across threads: {@code ./traindeck bench profile}. As a program
 * of its own, its arguments pick the profiles: vit, gpt (op profiles), vit-layers, gpt-layers (time per layer).
 */
final class TransformerProfile {

    private TransformerProfile() {
    }

    static void run(TransformerPeers.Peer peer, Path out) throws Exception {
        System.out.println("=== op profile, " + peer.name() + " (one CPU device, " + EngineBench.EPOCHS + " epochs, warm-up included) ===");
        OpProfiler.getInstance().reset();
        Nd4j.getExecutioner().setProfilingConfig(ProfilerConfig.builder().checkElapsedTime(true).build());
        try {
            double rate = EngineBench.measure(peer.workload(), Files.createDirectories(out), "cpu").samplesPerSecond();
            System.out.printf("%.0f samples/s while profiled%n", rate);
        } finally {
            Nd4j.getExecutioner().setProfilingConfig(ProfilerConfig.builder().build());
        }
        OpProfiler.getInstance().printOutDashboard();
    }

    public static void main(String[] args) throws Exception {
        Nd4jRuntime.init();
        Path home = Path.of(System.getProperty("traindeck.home", System.getProperty("user.dir"))).toAbsolutePath();
        Path out = Files.createTempDirectory("traindeck-profile-");
        for (String kind : args.length == 0 ? new String[] {"vit", "gpt"} : args) {
            TransformerPeers.Peer peer = kind.startsWith("gpt") ? TransformerPeers.gpt(home) : TransformerPeers.vit(home);
            if (kind.endsWith("-layers")) {
                LayerTimes.run(peer, out.resolve(kind), 10);
            } else {
                run(peer, out.resolve(kind));
            }
        }
        System.exit(0);
    }
}
