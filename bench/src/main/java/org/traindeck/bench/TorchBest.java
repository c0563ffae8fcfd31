package org.traindeck.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * PyTorch's samples/s in each of {@link TorchSetting#wholeMachine}'s settings, pair by pair, and "PyTorch's best":
 * the setting with the highest median, whose figures a whole-machine row's pairwise ratios divide by.
 */
final class TorchBest {

    /** One peer run in a setting: its samples/s. */
    @FunctionalInterface
    interface PeerRunner {
        PeerBench.PeerRun run(TorchSetting setting) throws Exception;
    }

    private final List<TorchSetting> settings;
    private final double[][] rates;

    TorchBest(List<TorchSetting> settings, int pairs) {
        this.settings = List.copyOf(settings);
        this.rates = new double[settings.size()][pairs];
        for (double[] r : rates) {
            Arrays.fill(r, Double.NaN);
        }
    }

    void put(TorchSetting setting, int pair, double samplesPerSecond) {
        rates[settings.indexOf(setting)][pair] = samplesPerSecond;
    }

    /** Runs, for {@code pair}, every setting not yet measured in it. */
    void measure(int pair, PeerRunner runner) throws Exception {
        for (int s = 0; s < settings.size(); s++) {
            if (Double.isNaN(rates[s][pair])) {
                rates[s][pair] = runner.run(settings.get(s)).samplesPerSecond()[0];
            }
        }
    }

    double[] of(TorchSetting setting) {
        return rates[settings.indexOf(setting)];
    }

    TorchSetting best() {
        TorchSetting best = settings.get(0);
        for (TorchSetting s : settings) {
            if (Stats.of(of(s)).median() > Stats.of(of(best)).median()) {
                best = s;
            }
        }
        return best;
    }

    /** Pair {@code pair}'s figures, for the progress lines. */
    String pair(int pair) {
        StringJoiner line = new StringJoiner(", ");
        for (int s = 0; s < settings.size(); s++) {
            line.add(settings.get(s).arg() + " " + Stats.rate(rates[s][pair]));
        }
        return line.toString();
    }

    /** The row's PyTorch cell: the best setting's figures ({@code afterBest} appended), then the others' medians. */
    String describe(int decimals, String afterBest) {
        TorchSetting best = best();
        StringJoiner others = new StringJoiner("; ");
        for (TorchSetting s : settings) {
            if (!s.equals(best)) {
                others.add(s.describe() + " " + String.format(Locale.ROOT, "%." + decimals + "f", median(s)));
            }
        }
        return "PyTorch's best, " + best.describe() + ": " + Stats.of(of(best)).format("samples/s", decimals)
                + afterBest + " (" + others + ")";
    }

    private double median(TorchSetting s) {
        return Stats.of(of(s)).median();
    }
}
