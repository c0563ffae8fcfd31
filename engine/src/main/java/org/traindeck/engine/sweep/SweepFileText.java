package org.traindeck.engine.sweep;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.LocatedJsonParser;

/** A sweep file's text and its JSON's positions, or the one problem that stops it being read as a sweep at all. */
final class SweepFileText {

    private SweepFileText() {}

    /** The file's UTF-8 text, refused when missing, larger than a config may be, or not UTF-8. */
    static String read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new InvalidConfigException("", file + " does not exist (or is not a file)");
        }
        long size = Files.size(file);
        if (size > ConfigParser.MAX_CONFIG_BYTES) {
            throw new InvalidConfigException(
                    "",
                    String.format(
                            Locale.ROOT,
                            "%s is %.1f MB, but a sweep file is at most %d kB: is it the right file?",
                            file,
                            size / 1e6,
                            ConfigParser.MAX_CONFIG_BYTES / 1024));
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(Files.readAllBytes(file)))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new InvalidConfigException("", file + " is not UTF-8 text");
        }
    }

    /** Positions and duplicate keys from the config's own parser; a syntax error is thrown, located. */
    static LocatedJsonParser.Result located(String text, Path file) {
        LocatedJsonParser.Result located = LocatedJsonParser.parse(text);
        ConfigProblem e = located.syntaxError();
        if (e != null) {
            throw new InvalidConfigException(List.of(new ConfigProblem(
                    ConfigProblem.Severity.ERROR,
                    "",
                    file + " is not valid JSON: " + e.message(),
                    e.line(),
                    e.column())));
        }
        return located;
    }
}
