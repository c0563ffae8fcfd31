package org.traindeck.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.traindeck.engine.profile.OpTimes;
import org.traindeck.engine.profile.StepProfile;
import org.traindeck.engine.train.Nd4jRuntime;

/**
 * Where a TrainDeck step of the ViT or GPT sample goes: one run (as the bench's, one CPU device) with ND4J's op
 * profiler timing every native op ({@link OpTimes}, the engine's, as {@code traindeck profile --ops}), then the time
 * per op name. Run it with OMP_NUM_THREADS=1 so that op times are not split across threads: {@code ./traindeck bench
 * profile}. As a program
 * of its own, its arguments pick the profiles: vit, gpt (op profiles), vit-layers, gpt-layers (time per layer).
 */
final class TransformerProfile {

    private TransformerProfile() {}

    static void run(TransformerNets.Peer peer, Path out) throws Exception {
        System.out.println("=== op profile, " + peer.name() + " (one CPU device, " + EngineBench.EPOCHS
                + " epochs, warm-up included) ===");
        double[] rate = new double[1];
        List<StepProfile.OpTime> ops = OpTimes.during(() -> {
            try {
                rate[0] = EngineBench.measure(peer.workload(), Files.createDirectories(out), "cpu")
                        .samplesPerSecond();
            } catch (Exception e) {
                throw new IllegalStateException("the profiled run failed", e);
            }
        });
        System.out.printf(Locale.ROOT, "%.0f samples/s while profiled%n", rate[0]);
        double total = ops.stream().mapToDouble(StepProfile.OpTime::totalMs).sum();
        System.out.printf(Locale.ROOT, "%-32s %10s %10s %7s%n", "op", "ms", "calls", "%");
        for (StepProfile.OpTime o : ops) {
            System.out.printf(
                    Locale.ROOT,
                    "%-32s %10.1f %10d %6.1f%%%n",
                    o.name(),
                    o.totalMs(),
                    o.calls(),
                    100 * o.totalMs() / total);
        }
    }

    public static void main(String[] args) throws Exception {
        Nd4jRuntime.init();
        Path home = Path.of(System.getProperty("traindeck.home", System.getProperty("user.dir")))
                .toAbsolutePath();
        Path out = Files.createTempDirectory("traindeck-profile-");
        for (String kind : args.length == 0 ? new String[] {"vit", "gpt"} : args) {
            TransformerNets.Peer peer = kind.startsWith("gpt") ? TransformerNets.gpt(home) : TransformerNets.vit(home);
            if (kind.endsWith("-layers")) {
                LayerTimes.run(peer, out.resolve(kind), 10);
            } else {
                run(peer, out.resolve(kind));
            }
        }
        System.exit(0);
    }
}
