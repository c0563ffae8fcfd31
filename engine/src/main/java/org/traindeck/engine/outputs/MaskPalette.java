package org.traindeck.engine.outputs;

import java.awt.image.IndexColorModel;

/**
 * The colours of class ids in a mask: class 0 (usually the background) black, then a fixed list of well-separated
 * colours, repeated past its end. The same id has the same colour in every picture TrainDeck draws.
 */
public final class MaskPalette {

    private static final int[] COLOURS = {
        0x000000, 0xE6194B, 0x3CB44B, 0xFFE119, 0x4363D8, 0xF58231, 0x911EB4, 0x46F0F0, 0xF032E6, 0xBCF60C, 0xFABEBE,
        0x008080, 0xE6BEFF, 0x9A6324, 0xFFFAC8, 0x800000, 0xAAFFC3, 0x808000, 0xFFD8B1, 0x000075, 0x808080
    };

    private MaskPalette() {}

    /** 0xRRGGBB of a class id. */
    public static int rgb(int classId) {
        if (classId < 0) {
            throw new IllegalArgumentException("class id " + classId);
        }
        return classId == 0 ? COLOURS[0] : COLOURS[1 + (classId - 1) % (COLOURS.length - 1)];
    }

    /** A palette of 256 entries whose index i has class i's colour: a PNG of it stores the class ids themselves. */
    public static IndexColorModel colorModel() {
        byte[] r = new byte[256];
        byte[] g = new byte[256];
        byte[] b = new byte[256];
        for (int i = 0; i < 256; i++) {
            int c = rgb(i);
            r[i] = (byte) (c >> 16);
            g[i] = (byte) (c >> 8);
            b[i] = (byte) c;
        }
        return new IndexColorModel(8, 256, r, g, b);
    }
}
