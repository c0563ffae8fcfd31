package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A process that reads the named arrays of the {@code .npz} given through TrainDeck's own cache (the one in its data
 * folder), says so, and waits to be killed.
 */
public final class InflatingChild {

    private InflatingChild() {}

    public static void main(String[] args) throws IOException {
        NpzArchive npz = NpzArchive.open(Path.of(args[0]));
        for (int i = 1; i < args.length; i++) {
            // a scan of every value: the member is read, not only inflated
            npz.array(args[i]).firstNonFinite();
        }
        System.out.println("inflated");
        System.out.flush();
        // until the parent kills it
        while (System.in.read() >= 0) {
            continue;
        }
    }
}
