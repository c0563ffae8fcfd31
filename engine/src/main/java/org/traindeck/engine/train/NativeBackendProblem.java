package org.traindeck.engine.train;

import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.javacpp.Loader;
import org.traindeck.engine.devices.BackendBuild;

/**
 * Says why ND4J's backend did not start, in the user's terms. ND4J's own exception says only "Please ensure that you
 * have an nd4j backend on your classpath" when the CUDA build finds no driver (the reason goes to its log), so the
 * build is told by the classes it carries, and for CUDA the runtime library's loading is tried first for the reason.
 */
final class NativeBackendProblem {

    static final String CUDA_BACKEND = BackendBuild.CUDA_BACKEND;
    static final String CUDA_RUNTIME = "org.bytedeco.cuda.global.cudart";

    /** The dynamic loader's "PATH/LIBRARY.so: REASON". */
    private static final Pattern LOADER_PATH = Pattern.compile("(/\\S*/)?([^/\\s]+\\.so[.\\d]*): (.+)");

    private final Predicate<String> classPresent;
    private final Function<String, Throwable> loadFailure;

    /**
     * @param classPresent whether the build carries a class (by name)
     * @param loadFailure what loading a class's native library (the class by name) throws, or null when it loads
     */
    NativeBackendProblem(Predicate<String> classPresent, Function<String, Throwable> loadFailure) {
        this.classPresent = classPresent;
        this.loadFailure = loadFailure;
    }

    /** This process's classes. */
    static NativeBackendProblem here() {
        return new NativeBackendProblem(
                BackendBuild::carries, name -> loadFailure(name, NativeBackendProblem.class.getClassLoader()));
    }

    /**
     * For the CUDA build, the exception to give the user when CUDA's runtime library cannot load, tried before ND4J
     * tries it (after a failed try JavaCPP only says that the class could not be initialised); else null.
     */
    NativeBackendException beforeLoading() {
        if (!classPresent.test(CUDA_BACKEND)) {
            return null;
        }
        Throwable failure = loadFailure.apply(CUDA_RUNTIME);
        return failure == null ? null : new NativeBackendException(cudaAdvice(linkProblem(failure)), failure);
    }

    /** The exception to give the user for {@code failure}, what loading ND4J's backend threw. */
    NativeBackendException explain(Throwable failure) {
        String link = linkProblem(failure);
        return new NativeBackendException(
                classPresent.test(CUDA_BACKEND) ? cudaAdvice(link) : cpuAdvice(link), failure);
    }

    private static String cudaAdvice(String link) {
        String reason = link == null ? "ND4J found no usable CUDA device (its log above says why)" : link;
        String driver = link != null && link.contains("libcuda.so")
                ? " No NVIDIA driver is installed (libcuda.so.1 is the driver's library)."
                : "";
        return "this is TrainDeck's CUDA 11.6 build, and ND4J's CUDA backend cannot start here: " + reason + "."
                + driver + " Install an NVIDIA driver for CUDA 11.6 (release 510 or newer), or use the CPU build"
                + " (./traindeck, or packaging/build-linux.sh without --cuda).";
    }

    private static String cpuAdvice(String link) {
        String reason = link == null ? "ND4J found no backend it could load" : link;
        return "ND4J's CPU backend cannot load its native libraries: " + reason + ". TrainDeck ships them for "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch")
                + " in nd4j-native's and OpenBLAS's jars; rebuild (mvn -o package) if they are missing, and check that"
                + " nothing sets org.bytedeco.javacpp.platform to another platform.";
    }

    /** The innermost unsatisfied link's message in {@code t}'s causes (without a closing full stop), or null. */
    static String linkProblem(Throwable t) {
        String found = null;
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof UnsatisfiedLinkError && c.getMessage() != null) {
                found = c.getMessage().strip().replaceAll("\\.+$", "");
            }
        }
        return found == null ? null : withoutCachePath(found);
    }

    /**
     * "/home/u/.javacpp/cache/…/libjnicudart.so: libcuda.so.1: cannot open …" as "libcuda.so.1: cannot open …
     * (needed by libjnicudart.so)": the path of JavaCPP's cache says nothing the user can act on.
     */
    private static String withoutCachePath(String message) {
        Matcher m = LOADER_PATH.matcher(message);
        return m.matches() ? m.group(3) + " (needed by " + m.group(2) + ")" : message;
    }

    /** What JavaCPP's loading of a class's native library throws (its message is the reason), or null. */
    private static Throwable loadFailure(String name, ClassLoader loader) {
        try {
            Loader.load(Class.forName(name, false, loader));
            return null;
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            return e;
        }
    }
}
