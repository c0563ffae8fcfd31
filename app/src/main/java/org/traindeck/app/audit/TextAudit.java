package org.traindeck.app.audit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javafx.scene.Node;
import javafx.scene.control.ContentDisplay;
import javafx.scene.control.Labeled;
import javafx.scene.layout.BackgroundFill;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.paint.Paint;
import javafx.scene.text.Text;
import org.traindeck.app.charts.ChartPalette;
import org.traindeck.app.charts.LiveChart;

/**
 * The text half of {@link LayoutAudit}: whether a label, button or cell shows its whole text (its skin's text node
 * holds what is drawn: "St…" where the text is "Status"), and whether a text or a chart's series stands out from what
 * it is drawn on by at least 3:1 (WCAG 2; a disabled control is exempt, as WCAG has it).
 */
final class TextAudit {

    private TextAudit() {}

    static void check(Labeled l, String name, AuditReport report) {
        if (l.getText() == null || l.getText().isBlank() || l.getContentDisplay() == ContentDisplay.GRAPHIC_ONLY) {
            return;
        }
        Text drawn = drawnText(l);
        if (drawn == null) {
            return;
        }
        report.checked(AuditReport.Kind.ELLIPSIZED);
        String whole = l.isMnemonicParsing() ? withoutMnemonic(l.getText()) : l.getText();
        if (!drawn.getText().equals(whole)) {
            report.defect(AuditReport.Kind.ELLIPSIZED, name + " reads '" + drawn.getText() + "'");
        }
        if (l.isDisabled() || !(drawn.getFill() instanceof Color fill) || fill.getOpacity() == 0) {
            return;
        }
        Color under = background(l);
        report.checked(AuditReport.Kind.CONTRAST);
        double ratio = contrast(blend(fill, under), under);
        if (ratio < ChartPalette.MIN_CONTRAST) {
            report.defect(
                    AuditReport.Kind.CONTRAST,
                    String.format(Locale.ROOT, "%s: %s on %s is %.2f:1", name, hex(fill), hex(under), ratio));
        }
    }

    /** Each series and each stage boundary (its line and its name) the chart draws, against its background. */
    static void checkSeries(LiveChart chart, String name, AuditReport report) {
        Map<String, Object> drawn = new LinkedHashMap<>();
        chart.seriesKeys().forEach(key -> drawn.put("series " + key, chart.drawnPaint(key)));
        chart.markerPaints().forEach((key, paint) -> drawn.put("stage " + key, paint));
        java.awt.Color bg = ChartPalette.background(chart.isDark());
        drawn.forEach((what, paint) -> {
            if (!(paint instanceof java.awt.Color c)) {
                return;
            }
            report.checked(AuditReport.Kind.CONTRAST);
            double ratio = ChartPalette.contrast(c, bg);
            if (ratio < ChartPalette.MIN_CONTRAST) {
                report.defect(
                        AuditReport.Kind.CONTRAST,
                        String.format(
                                Locale.ROOT,
                                "%s %s: #%06x on #%06x is %.2f:1 (%s theme)",
                                name,
                                what,
                                c.getRGB() & 0xffffff,
                                bg.getRGB() & 0xffffff,
                                ratio,
                                chart.isDark() ? "dark" : "light"));
            }
        });
    }

    /** The skin's text node: what the label draws (its graphic's texts are not it). */
    private static Text drawnText(Labeled l) {
        for (Node n : l.getChildrenUnmodifiable()) {
            if (n instanceof Text t && t.getStyleClass().contains("text")) {
                return t;
            }
        }
        return null;
    }

    /** The text as drawn with mnemonic parsing: "_File" reads "File", "__" reads "_". */
    static String withoutMnemonic(String text) {
        int i = text.indexOf('_');
        while (i >= 0 && i < text.length() - 1) {
            if (text.charAt(i + 1) == '_') {
                i = text.indexOf('_', i + 2);
                continue;
            }
            return text.substring(0, i) + text.substring(i + 1);
        }
        return text;
    }

    /** The colour the node is drawn on: the nearest opaque background fill up the tree, under any translucent ones. */
    private static Color background(Node node) {
        List<Color> translucent = new ArrayList<>();
        for (Node n = node; n != null; n = n.getParent()) {
            if (n instanceof Region r && r.getBackground() != null) {
                List<BackgroundFill> fills = r.getBackground().getFills();
                for (int i = fills.size() - 1; i >= 0; i--) {
                    if (!(fills.get(i).getFill() instanceof Color c) || c.getOpacity() == 0) {
                        continue;
                    }
                    if (c.getOpacity() >= 0.95) {
                        return overlay(translucent, c);
                    }
                    translucent.add(c);
                    break;
                }
            }
        }
        Paint sceneFill = node.getScene() == null ? null : node.getScene().getFill();
        return overlay(translucent, sceneFill instanceof Color c && c.getOpacity() > 0 ? c : Color.WHITE);
    }

    private static Color overlay(List<Color> translucent, Color base) {
        Color out = base;
        for (int i = translucent.size() - 1; i >= 0; i--) {
            out = blend(translucent.get(i), out);
        }
        return out;
    }

    private static Color blend(Color top, Color base) {
        double a = top.getOpacity();
        return Color.color(
                top.getRed() * a + base.getRed() * (1 - a),
                top.getGreen() * a + base.getGreen() * (1 - a),
                top.getBlue() * a + base.getBlue() * (1 - a));
    }

    private static double contrast(Color a, Color b) {
        return ChartPalette.contrast(awt(a), awt(b));
    }

    private static java.awt.Color awt(Color c) {
        return new java.awt.Color((float) c.getRed(), (float) c.getGreen(), (float) c.getBlue());
    }

    private static String hex(Color c) {
        return String.format(
                Locale.ROOT,
                "#%02x%02x%02x",
                Math.round(c.getRed() * 255),
                Math.round(c.getGreen() * 255),
                Math.round(c.getBlue() * 255));
    }
}
