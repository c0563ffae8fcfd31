package org.traindeck.engine.use.export;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/** Tensors as an {@code .npz}: a zip of one uncompressed {@code <name>.npy} per tensor, as numpy.savez writes it. */
final class NpzWriter {

    private NpzWriter() {}

    static void write(List<NamedTensor> tensors, OutputStream out) throws IOException {
        ZipOutputStream zip = new ZipOutputStream(out);
        for (NamedTensor t : tensors) {
            byte[] npy = NpyWriter.bytes(t);
            ZipEntry e = new ZipEntry(t.name() + ".npy");
            e.setMethod(ZipEntry.STORED);
            e.setSize(npy.length);
            e.setCompressedSize(npy.length);
            CRC32 crc = new CRC32();
            crc.update(npy);
            e.setCrc(crc.getValue());
            zip.putNextEntry(e);
            zip.write(npy);
            zip.closeEntry();
        }
        zip.finish();
    }
}
