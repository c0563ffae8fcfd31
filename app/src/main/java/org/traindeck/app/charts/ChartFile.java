package org.traindeck.app.charts;

import java.io.IOException;
import java.nio.file.Path;

/** A chart's export, taken on the FX thread as a snapshot and written to a file on any thread. */
@FunctionalInterface
public interface ChartFile {

    void writeTo(Path file) throws IOException;
}
