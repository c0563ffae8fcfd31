package org.traindeck.app.charts;

import java.awt.image.BufferedImage;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;

/** A chart's exports: taken as a snapshot on the FX thread, written to a file on any thread. */
final class ChartExport {

    private ChartExport() {}

    static ChartFile png(JFreeChart chart, int width, int height) {
        BufferedImage image = chart.createBufferedImage(width, height);
        return file -> ImageIO.write(image, "png", file.toFile());
    }

    /** Every point of every series, not the reduction: one row per point, the series named in the first column. */
    static ChartFile csv(Collection<ChartLine> lines) {
        List<String> labels = new ArrayList<>();
        List<double[][]> columns = new ArrayList<>();
        for (ChartLine l : lines) {
            int n = l.data.size();
            double[][] c = new double[3][n];
            for (int i = 0; i < n; i++) {
                c[0][i] = l.data.step(i);
                c[1][i] = l.data.time(i);
                c[2][i] = l.data.value(i);
            }
            labels.add('"' + l.label.replace("\"", "\"\"") + '"');
            columns.add(c);
        }
        return file -> {
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                w.write("series,step,time,value\n");
                for (int s = 0; s < labels.size(); s++) {
                    double[][] c = columns.get(s);
                    for (int i = 0; i < c[0].length; i++) {
                        w.write(labels.get(s) + "," + c[0][i] + "," + c[1][i] + "," + c[2][i] + "\n");
                    }
                }
            }
        };
    }
}
