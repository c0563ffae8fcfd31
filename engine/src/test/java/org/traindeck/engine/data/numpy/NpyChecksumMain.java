package org.traindeck.engine.data.numpy;

import java.nio.file.Path;

/**
 * Run in a child JVM with a small heap by {@link NpyLargerThanHeapTest}: reads every sample of an {@code .npy} in batches
 * and prints a checksum of the values in order. Arguments: file, mapping window bytes, samples per batch.
 */
public final class NpyChecksumMain {

    private NpyChecksumMain() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        long window = Long.parseLong(args[1]);
        int batch = Integer.parseInt(args[2]);
        try (NpyArray a = NpyArray.open(file, window)) {
            int length = (int) a.sampleLength();
            float[] buffer = new float[batch * length];
            long checksum = 0;
            long values = 0;
            for (long first = 0; first < a.sampleCount(); first += batch) {
                int n = (int) Math.min(batch, a.sampleCount() - first);
                a.readSamples(first, n, buffer, 0);
                for (int k = 0; k < n * length; k++) {
                    checksum = checksum * 31 + Float.floatToRawIntBits(buffer[k]);
                }
                values += (long) n * length;
            }
            System.out.println("values " + values + " checksum " + checksum + " maxMemory "
                    + Runtime.getRuntime().maxMemory());
        }
    }
}
