/**
 * Reads NumPy {@code .npy} files and {@code .npz} archives for training, without loading them whole and without ever
 * running a pickle.
 *
 * <pre>{@code
 * try (NpyArray x = NpyArray.open(Path.of("x.npy"))) {          // or: npz = NpzArchive.open(path); npz.array("x")
 *     float[] batch = new float[64 * (int) x.sampleLength()];
 *     x.readSamples(first, 64, batch, 0);                        // C order within each sample, whatever the file's order
 * }
 * }</pre>
 *
 * Why not {@code Nd4j.createFromNpyFile} (ND4J 1.0.0-M2.1, measured on this package's fixtures): it loads the whole file,
 * aborts the JVM on a big-endian file (a native assertion) and crashes it on an object array (SIGSEGV), silently returns
 * wrongly ordered values for Fortran-order files, and accepts truncated files, trailing bytes and a header claiming
 * more data than the file holds (reading past the end).
 */
package org.traindeck.engine.data.numpy;
