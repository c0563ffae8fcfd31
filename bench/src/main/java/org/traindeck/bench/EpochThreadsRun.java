package org.traindeck.bench;

import java.nio.file.Path;
import java.util.Locale;
import org.traindeck.engine.train.Nd4jRuntime;

/**
 * TrainDeck's run of a peer row's network alone ("lenet-graph", "unet" or "xray16"; one thread, or the devices
 * -Dtraindeck.bench.devices names, such as cpu:2), in this JVM, with where the
 * measured epochs' CPU went thread by thread ({@link ThreadTimes}): what the wall time of a bench row is made of
 * beyond the training step's own thread. Run it with OMP_NUM_THREADS=1, as the rows' TrainDeck runs are, and with the
 * JVM options ./traindeck gives every JVM (-XX:+UnlockDiagnosticVMOptions
 * -XX:CompilerDirectivesFile=packaging/compiler-directives.json), or the compiler's work is not the users'. Arguments:
 * the row, the output folder, and for xray16 the phantoms an epoch (96 by default); -Dtraindeck.bench.epochs=N
 * trains N epochs instead of the rows' 4.
 */
public final class EpochThreadsRun {

    private EpochThreadsRun() {}

    private static Path home() {
        return Path.of(System.getProperty("traindeck.home", System.getProperty("user.dir")))
                .toAbsolutePath();
    }

    public static void main(String[] args) throws Exception {
        Nd4jRuntime.init();
        System.setProperty("traindeck.bench.threadTimes", "true");
        EngineBench.Workload w = switch (args[0]) {
            case "lenet-graph" -> ConvSampleNets.lenet().workload();
            case "unet" -> ConvSampleNets.unet(home()).workload();
            case "xray16" -> {
                if (System.getProperty("traindeck.bench.xraySamples") == null) {
                    System.setProperty("traindeck.bench.xraySamples", args.length > 2 ? args[2] : "96");
                }
                yield VolumeDiffusionPeer.stage1(home()).workload();
            }
            default -> throw new IllegalArgumentException("lenet-graph, unet or xray16, not " + args[0]);
        };
        int epochs = Integer.getInteger("traindeck.bench.epochs", EngineBench.EPOCHS);
        Path out = Path.of(args[1]);
        double rate = EngineBench.measure(
                        EngineBench.config(
                                w, out, System.getProperty("traindeck.bench.devices", "cpu"), true, false, epochs),
                        w.samples())
                .samplesPerSecond();
        System.out.println(
                String.format(Locale.ROOT, "%s: %.4g samples/s over the epochs after the first", w.name(), rate));
        System.exit(0);
    }
}
