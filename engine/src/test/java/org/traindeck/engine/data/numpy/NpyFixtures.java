package org.traindeck.engine.data.numpy;

import java.nio.file.Path;
import org.traindeck.engine.TestPaths;

/** The fixtures written by {@code src/test/resources/numpy/make_fixtures.py}, and the formula their values follow. */
final class NpyFixtures {

    private NpyFixtures() {}

    static Path dir() {
        return TestPaths.repoRoot().resolve("engine/src/test/resources/numpy");
    }

    static Path file(String name) {
        return dir().resolve(name);
    }

    /** The value at C-order position {@code c}, as {@code value()} in make_fixtures.py; {@code kind} is f, i, u or b. */
    static double expected(char kind, long c) {
        long base = (c * 7 + 3) % 251;
        return switch (kind) {
            case 'u' -> base;
            case 'b' -> c % 3 == 0 ? 1 : 0;
            case 'f' -> (base - 125) / 4.0;
            default -> base - 125;
        };
    }
}
