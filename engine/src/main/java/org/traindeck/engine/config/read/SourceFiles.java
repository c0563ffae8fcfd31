package org.traindeck.engine.config.read;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.IdxSource;
import org.traindeck.engine.config.ImageFolderSource;
import org.traindeck.engine.config.MaskFoldersSource;
import org.traindeck.engine.config.NumpySource;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.TextSource;

/** Whether the files and folders a data source names are there and readable, each problem at the key that names it. */
final class SourceFiles {

    private static final String FASHION_MNIST_HINT =
            "Fashion-MNIST ships in Debian's package dataset-fashion-mnist: install it with `sudo apt-get install dataset-fashion-mnist`";

    private final Problems problems;
    private final Path baseDir;
    private final boolean checkFiles;

    /** @param checkFiles false: the data files need not be there (a stored config, for using its trained model) */
    SourceFiles(Problems problems, Path baseDir, boolean checkFiles) {
        this.problems = problems;
        this.baseDir = baseDir;
        this.checkFiles = checkFiles;
    }

    /** Whether the files a source names are there (csv and numpy: in their own readers, with their other rules). */
    void checkNamedIn(JsonObjectReader r, SourceConfig source) {
        source.accept(new SourceConfig.Visitor<Void>() {
            @Override
            public Void idx(IdxSource s) {
                checkIdxFiles(r.pathOf("path"), s.path(), s.split());
                return null;
            }

            @Override
            public Void csv(CsvSource s) {
                return null;
            }

            @Override
            public Void images(ImageFolderSource s) {
                checkExists(r.pathOf("path"), s.path(), true);
                return null;
            }

            @Override
            public Void masks(MaskFoldersSource s) {
                checkExists(r.pathOf("images"), s.images(), true);
                checkExists(r.pathOf("masks"), s.masks(), true);
                return null;
            }

            @Override
            public Void synthetic(SyntheticSource s) {
                return null;
            }

            @Override
            public Void text(TextSource s) {
                checkExists(r.pathOf("path"), s.path(), false);
                return null;
            }

            @Override
            public Void numpy(NumpySource s) {
                return null;
            }
        });
    }

    void checkExists(String at, String path, boolean directory) {
        if (!checkFiles) {
            return;
        }
        Path p = baseDir.resolve(path).normalize();
        if (directory ? !Files.isDirectory(p) : !Files.isRegularFile(p)) {
            String what = directory ? "folder" : "file";
            String hint = Files.exists(p) ? " (it exists but is not a " + what + ")" : "";
            problems.error(at, "no such " + what + ": " + p + hint);
        } else if (!Files.isReadable(p)) {
            problems.error(at, "cannot read " + p + " (permission denied)");
        }
    }

    private void checkIdxFiles(String at, String path, String split) {
        if (!checkFiles) {
            return;
        }
        Path dir = baseDir.resolve(path).normalize();
        boolean fashion = dir.toString().contains("fashion-mnist");
        if (!Files.isDirectory(dir)) {
            problems.error(at, "no such folder: " + dir + (fashion ? ". " + FASHION_MNIST_HINT : ""));
            return;
        }
        for (String kind : List.of("images-idx3-ubyte", "labels-idx1-ubyte")) {
            String base = split + "-" + kind;
            if (!Files.isRegularFile(dir.resolve(base)) && !Files.isRegularFile(dir.resolve(base + ".gz"))) {
                problems.error(
                        at,
                        "the folder " + dir + " has no " + base + " or " + base + ".gz"
                                + (fashion ? ". " + FASHION_MNIST_HINT : ""));
            }
        }
    }
}
