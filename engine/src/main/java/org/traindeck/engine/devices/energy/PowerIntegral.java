package org.traindeck.engine.devices.energy;

/**
 * Energy from power samples by the trapezoid rule: each pair of consecutive samples adds the mean of their watts times
 * the time between them. A pause longer than {@code maxGap} (nvidia-smi restarting, a suspended machine) is not bridged:
 * its time is counted as unmeasured rather than guessed. Samples must come in time order; one out of order is ignored.
 */
public final class PowerIntegral {

    private final long maxGapMillis;
    private long lastMillis = Long.MIN_VALUE;
    private double lastWatts;
    private double joules;
    private long coveredMillis;
    private long gapMillis;
    private long samples;

    public PowerIntegral(long maxGapMillis) {
        this.maxGapMillis = maxGapMillis;
    }

    public synchronized void add(long timeMillis, double watts) {
        if (!Double.isFinite(watts) || watts < 0 || (lastMillis != Long.MIN_VALUE && timeMillis < lastMillis)) {
            return;
        }
        samples++;
        if (lastMillis != Long.MIN_VALUE) {
            long dt = timeMillis - lastMillis;
            if (dt > maxGapMillis) {
                gapMillis += dt;
            } else {
                joules += (lastWatts + watts) / 2 * dt / 1000.0;
                coveredMillis += dt;
            }
        }
        lastMillis = timeMillis;
        lastWatts = watts;
    }

    public synchronized double wattHours() {
        return joules / 3600.0;
    }

    /** The time between samples that were close enough to integrate. */
    public synchronized long coveredMillis() {
        return coveredMillis;
    }

    /** The time in pauses longer than the largest gap, left out. */
    public synchronized long gapMillis() {
        return gapMillis;
    }

    public synchronized long samples() {
        return samples;
    }
}
