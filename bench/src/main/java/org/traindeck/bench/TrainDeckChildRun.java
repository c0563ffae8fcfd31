package org.traindeck.bench;

import java.nio.file.Path;
import java.util.Locale;
import org.traindeck.engine.train.Nd4jRuntime;

/**
 * One TrainDeck bench run in a JVM of its own, so that its OMP_NUM_THREADS is its own: prints its samples/s.
 * Arguments: name, model JSON, data JSON, samples, batch, devices, output folder[, epochs (4 by default)].
 */
public final class TrainDeckChildRun {

    static final String RESULT = "traindeck_samples_per_s ";

    private TrainDeckChildRun() {}

    public static void main(String[] args) throws Exception {
        Nd4jRuntime.init();
        EngineBench.Workload w = EngineBench.Workload.fromArgs(args);
        int epochs = args.length > 7 ? Integer.parseInt(args[7]) : EngineBench.EPOCHS;
        double rate = EngineBench.measure(
                        EngineBench.config(w, Path.of(args[6]), args[5], true, false, epochs), w.samples())
                .samplesPerSecond();
        System.out.println(String.format(Locale.ROOT, "%s%.4g", RESULT, rate));
        System.exit(0);
    }
}
