package org.traindeck.engine.outputs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/** A mask PNG decodes to its class ids (as a training mask folder reads it); overlays tint all but the background. */
class MaskImagesTest {

    @Test
    void aMaskPngHoldsTheClassIdsAsPixelValues() throws IOException {
        int[] ids = {0, 1, 2, 3, 2, 1};
        BufferedImage back = ImageIO.read(new ByteArrayInputStream(MaskImages.png(MaskImages.mask(ids, 3, 2))));
        for (int i = 0; i < ids.length; i++) {
            assertThat(back.getRaster().getSample(i % 3, i / 3, 0)).isEqualTo(ids[i]);
        }
        assertThat(back.getRGB(1, 0) & 0xFFFFFF).isEqualTo(MaskPalette.rgb(1));
        assertThat(back.getRGB(0, 0) & 0xFFFFFF).isEqualTo(0);

        int[] many = {0, 300, 299, 7};
        BufferedImage wide = ImageIO.read(new ByteArrayInputStream(MaskImages.png(MaskImages.mask(many, 2, 2))));
        assertThat(wide.getRaster().getSample(1, 0, 0)).isEqualTo(300);
        assertThat(wide.getRaster().getSample(0, 1, 0)).isEqualTo(299);
    }

    @Test
    void picturesDrawGreyAndRgbAndStretchOtherRanges() {
        float[] grey = {0f, 0.5f, 1f, 0.25f};
        BufferedImage g = MaskImages.picture(grey, 0, 1, 2, 2);
        assertThat(g.getRGB(1, 0) & 0xFFFFFF).isEqualTo(0x808080);
        assertThat(g.getRGB(0, 1) & 0xFFFFFF).isEqualTo(0xFFFFFF);

        float[] rgb = {9, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        BufferedImage c = MaskImages.picture(rgb, 1, 3, 1, 3);
        assertThat(c.getRGB(0, 0) & 0xFFFFFF).isEqualTo(0xFF0000);
        assertThat(c.getRGB(1, 0) & 0xFFFFFF).isEqualTo(0x00FF00);
        assertThat(c.getRGB(2, 0) & 0xFFFFFF).isEqualTo(0x0000FF);

        float[] standardised = {-2f, 0f, 2f};
        BufferedImage s = MaskImages.picture(standardised, 0, 1, 1, 3);
        assertThat(s.getRGB(0, 0) & 0xFF).isEqualTo(0);
        assertThat(s.getRGB(1, 0) & 0xFF).isEqualTo(128);
        assertThat(s.getRGB(2, 0) & 0xFF).isEqualTo(255);
    }

    @Test
    void overlayTintsEveryClassButTheBackgroundAndPanelsSitSideBySide() {
        BufferedImage grey = MaskImages.picture(new float[] {0.5f, 0.5f}, 0, 1, 1, 2);
        BufferedImage over = MaskImages.overlay(grey, new int[] {0, 1}, 0.5);
        assertThat(over.getRGB(0, 0) & 0xFFFFFF).isEqualTo(0x808080);
        int tint = MaskPalette.rgb(1);
        int expectedRed = Math.round((0x80 + (tint >> 16 & 0xFF)) / 2f);
        assertThat(over.getRGB(1, 0) >> 16 & 0xFF).isBetween(expectedRed - 1, expectedRed);

        BufferedImage both = MaskImages.sideBySide(grey, over, MaskImages.mask(new int[] {2, 2, 2, 2}, 2, 2));
        assertThat(both.getWidth()).isEqualTo(2 + 2 + 2 + 2 * MaskImages.GAP);
        assertThat(both.getHeight()).isEqualTo(2);
        assertThat(both.getRGB(2 + 2 * MaskImages.GAP + 2 + 1, 1) & 0xFFFFFF).isEqualTo(MaskPalette.rgb(2));
        assertThatThrownBy(() -> MaskImages.overlay(grey, new int[] {0, 1, 2}, 0.5))
                .hasMessageContaining("3 class ids for a 2×1 mask");
    }
}
