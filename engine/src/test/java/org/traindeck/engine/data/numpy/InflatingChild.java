package org.traindeck.engine.data.numpy;

import java.io.IOException;
import java.nio.file.Path;

/** A process that inflates one member of the {@code .npz} given, says so, and waits to be killed. */
public final class InflatingChild {

    private InflatingChild() {}

    public static void main(String[] args) throws IOException {
        NpzArchive npz = NpzArchive.open(Path.of(args[0]));
        npz.array(args[1]);
        System.out.println("inflated");
        System.out.flush();
        // until the parent kills it
        while (System.in.read() >= 0) {
            continue;
        }
    }
}
