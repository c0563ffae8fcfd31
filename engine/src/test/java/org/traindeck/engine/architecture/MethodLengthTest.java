package org.traindeck.engine.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreeScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;

/**
 * No method or constructor in the main code of any module is longer than 80 lines (its signature to its closing
 * brace, as the source is formatted): a long one fails here with its file and line.
 */
class MethodLengthTest {

    static final int LIMIT = 80;

    record Method(String name, long lines, String where) {}

    @Test
    void noMethodInMainCodeIsLongerThanTheLimit() {
        List<Method> methods = mainCode();
        assertThat(methods).as("methods read from source").hasSizeGreaterThan(3000);
        List<String> tooLong = new ArrayList<>();
        for (Method m : methods) {
            if (m.lines() > LIMIT) {
                tooLong.add(m.name() + " is " + m.lines() + " lines (at most " + LIMIT + "), " + m.where());
            }
        }
        assertThat(tooLong)
                .as("methods over %d lines: cut them into named steps", LIMIT)
                .isEmpty();
    }

    @Test
    void aLongMethodIsFoundWithItsFileAndLine(@TempDir Path dir) throws IOException {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 85; i++) {
            body.append("        x += ").append(i).append(";\n");
        }
        Files.writeString(
                dir.resolve("Long.java"),
                "class Long {\n    int sum() {\n        int x = 0;\n" + body + "        return x;\n    }\n}\n");

        assertThat(read(List.of(dir)))
                .extracting(Method::name, Method::lines, Method::where)
                .containsExactly(tuple("Long.sum", 89L, "Long.java:2"));
    }

    private static List<Method> mainCode;

    /** Every module's main code, parsed once for both checks. */
    private static synchronized List<Method> mainCode() {
        if (mainCode == null) {
            mainCode = read(Stream.of("engine", "app", "bench", "cluster")
                    .map(m -> TestPaths.repoRoot().resolve(m).resolve("src/main/java"))
                    .filter(Files::isDirectory)
                    .toList());
        }
        return mainCode;
    }

    static List<Method> read(List<Path> roots) {
        List<Path> files = new ArrayList<>();
        for (Path root : roots) {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        List<Method> methods = new ArrayList<>();
        try (StandardJavaFileManager fm = compiler.getStandardFileManager(null, null, null)) {
            JavacTask task = (JavacTask) compiler.getTask(
                    null, fm, null, List.of("-proc:none"), null, fm.getJavaFileObjectsFromPaths(files));
            SourcePositions positions = Trees.instance(task).getSourcePositions();
            for (CompilationUnitTree unit : task.parse()) {
                new MethodScanner(unit, positions, methods).scan(unit, null);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return methods;
    }

    /** Visits every method with a body, naming it by its (nested) class's simple name. */
    private static final class MethodScanner extends TreeScanner<Void, String> {
        private final CompilationUnitTree unit;
        private final SourcePositions positions;
        private final List<Method> methods;

        MethodScanner(CompilationUnitTree unit, SourcePositions positions, List<Method> methods) {
            this.unit = unit;
            this.positions = positions;
            this.methods = methods;
        }

        @Override
        public Void visitClass(ClassTree c, String outer) {
            String name = c.getSimpleName().toString();
            String owner = outer == null ? name : name.isEmpty() ? outer : outer + "." + name;
            return super.visitClass(c, owner);
        }

        @Override
        public Void visitMethod(MethodTree m, String owner) {
            if (m.getBody() != null) {
                long first = unit.getLineMap().getLineNumber(positions.getStartPosition(unit, m));
                long last = unit.getLineMap().getLineNumber(positions.getEndPosition(unit, m));
                String file =
                        Path.of(unit.getSourceFile().toUri()).getFileName().toString();
                methods.add(new Method(owner + "." + m.getName(), last - first + 1, file + ":" + first));
            }
            return super.visitMethod(m, owner);
        }
    }
}
