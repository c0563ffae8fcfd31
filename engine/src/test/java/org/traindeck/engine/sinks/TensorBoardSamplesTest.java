package org.traindeck.engine.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.events.SamplesEvent;

/**
 * The sample predictions in the TensorBoard file, decoded by hand against tensorboard/compat/proto/summary.proto
 * (Summary.Value: tag 1, image 4, tensor 8, metadata 9; Summary.Image: height 1, width 2, colorspace 3,
 * encoded_image_string 4) and tensor.proto (TensorProto: dtype 1, tensor_shape 2, string_val 8; DT_STRING is 7).
 */
class TensorBoardSamplesTest {

    @Test
    void picturesAreImageSummariesAndLabelsAreTextSummaries(@TempDir Path dir) throws IOException {
        byte[] png = png(5, 3);
        SamplesEvent.Sample sample = new SamplesEvent.Sample(
                17,
                "3 (dress)",
                "3 (dress)",
                List.of(new SamplesEvent.Score("3 (dress)", 0.75), new SamplesEvent.Score("0 (T-shirt)", 0.25)),
                null,
                null,
                List.of(new SamplesEvent.Picture("input", 5, 3, 1, png)));
        TensorBoardSink sink = new TensorBoardSink(dir);
        sink.onEvent(
                new SamplesEvent("r", "main", 0, 1, 60, 1_700_000_000_500L, 2.0, "classification", 1, List.of(sample)));
        sink.onClose();

        List<byte[]> records = TfEventFileReader.records(sink.file());
        assertThat(records).hasSize(3);

        ProtoFields imageEvent = ProtoFields.parse(records.get(1));
        assertThat(imageEvent.doubleValue(1)).isEqualTo(1_700_000_000.5);
        assertThat(imageEvent.varint(2)).isEqualTo(60);
        ProtoFields imageValue = imageEvent.message(5).message(1);
        assertThat(imageValue.string(1)).isEqualTo("samples/17/input");
        ProtoFields image = imageValue.message(4);
        assertThat(image.varint(1)).isEqualTo(3);
        assertThat(image.varint(2)).isEqualTo(5);
        assertThat(image.varint(3)).isEqualTo(1);
        byte[] encoded = (byte[]) image.all(4).get(0);
        assertThat(encoded).isEqualTo(png);
        BufferedImage decoded = ImageIO.read(new ByteArrayInputStream(encoded));
        assertThat(decoded.getWidth()).isEqualTo(5);
        assertThat(decoded.getHeight()).isEqualTo(3);

        ProtoFields textEvent = ProtoFields.parse(records.get(2));
        assertThat(textEvent.varint(2)).isEqualTo(60);
        ProtoFields textValue = textEvent.message(5).message(1);
        assertThat(textValue.string(1)).isEqualTo("samples/17/text");
        assertThat(textValue.message(9).message(1).string(1)).isEqualTo("text");
        ProtoFields tensor = textValue.message(8);
        assertThat(tensor.varint(1)).isEqualTo(7);
        assertThat(tensor.message(2).has(2)).isFalse();
        assertThat(tensor.string(8))
                .isEqualTo(sample.markdown())
                .contains("**true:** 3 (dress)", "- 3 (dress): 75.0 %", "- 0 (T-shirt): 25.0 %");
    }

    @Test
    void aGeneratedTextIsOneTextSummaryAndNoImage(@TempDir Path dir) throws IOException {
        SamplesEvent.Sample sample = new SamplesEvent.Sample(0, null, null, null, "To be, or", " not to be", null);
        TensorBoardSink sink = new TensorBoardSink(dir);
        sink.onEvent(new SamplesEvent("r", "main", 0, 0, 8, 1_700_000_000_000L, 1.0, "sequence", 0, List.of(sample)));
        sink.onClose();

        List<byte[]> records = TfEventFileReader.records(sink.file());
        assertThat(records).hasSize(2);
        ProtoFields value = ProtoFields.parse(records.get(1)).message(5).message(1);
        assertThat(value.string(1)).isEqualTo("samples/0/text");
        assertThat(value.message(8).string(8)).isEqualTo("**prompt:** `To be, or`  \n**generated:** ` not to be`");
    }

    private static byte[] png(int width, int height) throws IOException {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_GRAY);
        image.getRaster().setSample(2, 1, 0, 200);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "png", out);
        return out.toByteArray();
    }
}
