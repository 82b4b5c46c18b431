package io.gpuq.reported;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.gpuq.fs.NotARegularFileException;
import io.gpuq.sweep.SweepLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Reading a trial's metrics file: new complete lines, safely, garbage counted")
class MetricsFileReaderTest {

  /** A deadline against hanging in open(2) on a FIFO, not a speed test. */
  private static final Duration HANG = Duration.ofSeconds(60);

  @TempDir Path dir;

  /** Small caps, so that lines here are long and reads are short. */
  private final MetricsFileReader reader = new MetricsFileReader(64, 32);

  private final MetricsFileReader roomy = new MetricsFileReader();

  private Path metrics(String content) throws IOException {
    return Files.writeString(dir.resolve("metrics.jsonl"), content);
  }

  private static void append(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardOpenOption.APPEND);
  }

  private static MetricPoint point(long step, Map<String, Double> values) {
    return new MetricPoint(step, values);
  }

  @Test
  void readsTheLinesAndRemembersWhereItStopped() throws IOException {
    Path file =
        metrics("{\"step\": 100, \"val_loss\": 0.31}\n{\"step\": 200, \"val_loss\": 0.29}\n");

    MetricsRead first = roomy.read(file, MetricsPosition.START, false);
    append(file, "{\"step\": 300, \"val_loss\": 0.27, \"val_acc\": 0.9}\n");
    MetricsRead second = roomy.read(file, first.position(), false);

    assertThat(first.points())
        .containsExactly(
            point(100, Map.of("val_loss", 0.31)), point(200, Map.of("val_loss", 0.29)));
    assertThat(first.position()).isEqualTo(new MetricsPosition(64, 200, false));
    assertThat(second.points())
        .containsExactly(point(300, Map.of("val_loss", 0.27, "val_acc", 0.9)));
    assertThat(second.position().offset()).isEqualTo(Files.size(file));
    assertThat(roomy.read(file, second.position(), false).points()).isEmpty();
  }

  @Test
  void aLineWithoutAStepTakesTheNextOne() throws IOException {
    Path file =
        metrics("{\"loss\": 3}\n{\"loss\": 2}\n{\"step\": 10, \"loss\": 1}\n{\"loss\": 0.5}\n");

    assertThat(reader.read(file, MetricsPosition.START, false).points())
        .extracting(MetricPoint::step)
        .containsExactly(0L, 1L, 10L, 11L);
  }

  @Test
  void aLineStillBeingWrittenWaitsForItsNewline() throws IOException {
    Path file = metrics("{\"step\": 1, \"loss\": 0.5}\n{\"step\": 2, \"lo");

    MetricsRead first = reader.read(file, MetricsPosition.START, false);
    append(file, "ss\": 0.4}\n");
    MetricsRead second = reader.read(file, first.position(), false);

    assertThat(first.points()).extracting(MetricPoint::step).containsExactly(1L);
    assertThat(first.skippedLines()).isZero();
    assertThat(second.points()).containsExactly(point(2, Map.of("loss", 0.4)));
  }

  @Test
  void onceTheRunHasEndedItsLastLineCountsWithoutANewline() throws IOException {
    Path file = metrics("{\"step\": 1, \"loss\": 0.5}\n{\"step\": 2, \"loss\": 0.4}");

    MetricsRead read = reader.read(file, MetricsPosition.START, true);

    assertThat(read.points()).extracting(MetricPoint::step).containsExactly(1L, 2L);
    assertThat(read.position().offset()).isEqualTo(Files.size(file));
  }

  @Test
  void garbageLinesAreCountedAndSkippedNeverFatal() throws IOException {
    Path file =
        metrics(
            String.join(
                "\n",
                "not json",
                "[1, 2]",
                "{\"loss\": \"0.3\"}",
                "{\"loss\": true}",
                "{\"loss\": {\"a\": 1}}",
                "{\"step\": 1.5, \"loss\": 1}",
                "{\"step\": -1, \"loss\": 1}",
                "{\"step\": 4}",
                "{}",
                "",
                "{\"loss\": 1, \"loss\": 2}",
                "{\"loss\": 1} {\"loss\": 2}",
                "{\"loss\": 1,}",
                "{\"step\": 5, \"loss\": 0.25}",
                ""));

    MetricsRead read = roomy.read(file, MetricsPosition.START, false);

    assertThat(read.points()).containsExactly(point(5, Map.of("loss", 0.25)));
    assertThat(read.skippedLines()).isEqualTo(13);
  }

  @Test
  void invalidUtf8IsGarbage() throws IOException {
    Path file = dir.resolve("metrics.jsonl");
    byte[] bad = "{\"lo\u00e9ss\": 1}\n".getBytes(StandardCharsets.ISO_8859_1);
    Files.write(file, bad);
    append(file, "{\"ok\": 2}\n");

    MetricsRead read = reader.read(file, MetricsPosition.START, false);

    assertThat(read.points()).containsExactly(point(0, Map.of("ok", 2.0)));
    assertThat(read.skippedLines()).isEqualTo(1);
  }

  @Test
  @DisplayName("overlong, surrogate and truncated UTF-8 never make a metric name")
  void overlongAndOtherInvalidUtf8IsGarbage() throws IOException {
    Path file = dir.resolve("metrics.jsonl");
    // "a" and "/" as overlong two-byte forms (C1 A1, C0 AF), a UTF-16 surrogate encoded as UTF-8
    // (ED A0 80), a three-byte form cut short (E2 82), and a four-byte one past U+10FFFF (F4 90).
    byte[][] names = {
      {(byte) 0xC1, (byte) 0xA1},
      {'x', (byte) 0xC0, (byte) 0xAF},
      {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
      {(byte) 0xE2, (byte) 0x82},
      {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}
    };
    java.io.ByteArrayOutputStream content = new java.io.ByteArrayOutputStream();
    for (byte[] name : names) {
      content.write('{');
      content.write('"');
      content.write(name);
      content.writeBytes("\": 1}\n".getBytes(StandardCharsets.US_ASCII));
    }
    content.writeBytes("{\"\u00e9t\u00e9\": 2}\n".getBytes(StandardCharsets.UTF_8));
    Files.write(file, content.toByteArray());

    MetricsRead read = roomy.read(file, MetricsPosition.START, false);

    assertThat(read.points()).containsExactly(point(0, Map.of("\u00e9t\u00e9", 2.0)));
    assertThat(read.skippedLines()).isEqualTo(names.length);
  }

  @Test
  @DisplayName("a line without a step never counts past 2^53 - 1, the bound an explicit step has")
  void anImplicitStepStopsWhereAnExplicitOneDoes() throws IOException {
    long max = SweepLimits.MAX_SAFE_INTEGER;
    Path file =
        metrics(
            "{\"step\": "
                + (max - 1)
                + ", \"loss\": 1}\n{\"loss\": 2}\n{\"loss\": 3}\n{\"step\": "
                + (max + 1)
                + ", \"loss\": 4}\n{\"step\": 7, \"loss\": 5}\n");

    MetricsRead read = roomy.read(file, MetricsPosition.START, false);

    assertThat(read.points()).extracting(MetricPoint::step).containsExactly(max - 1, max, 7L);
    assertThat(read.skippedLines()).isEqualTo(2);
  }

  @Test
  void nanAndInfinityAsPythonWritesThemAreValues() throws IOException {
    Path file = metrics("{\"loss\": NaN, \"grad\": Infinity, \"x\": -Infinity}\n");

    MetricPoint point = roomy.read(file, MetricsPosition.START, false).points().get(0);

    assertThat(point.values().get("loss")).isNaN();
    assertThat(point.values().get("grad")).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(point.values().get("x")).isEqualTo(Double.NEGATIVE_INFINITY);
  }

  @Test
  void aHugeLineIsCountedOnceAndSkippedAcrossReadsWithoutBeingHeld() throws IOException {
    // 32-byte lines at most, 64 bytes a read: this line takes three reads to get past.
    Path file = metrics("{\"step\": 1, \"a\": 1}\n{\"b\": \"" + "x".repeat(150) + "\"}\n");
    append(file, "{\"step\": 2, \"c\": 3}\n");

    MetricsPosition position = MetricsPosition.START;
    List<MetricPoint> points = new java.util.ArrayList<>();
    int skipped = 0;
    int reads = 0;
    MetricsRead read;
    do {
      read = reader.read(file, position, false);
      points.addAll(read.points());
      skipped += read.skippedLines();
      position = read.position();
      reads++;
    } while (read.more());

    assertThat(points).extracting(MetricPoint::step).containsExactly(1L, 2L);
    assertThat(skipped).isEqualTo(1);
    assertThat(reads).isGreaterThan(2);
    assertThat(position).isEqualTo(new MetricsPosition(Files.size(file), 2, false));
  }

  @Test
  void eachReadStopsAtItsCapAndSaysThereIsMore() throws IOException {
    StringBuilder lines = new StringBuilder();
    for (int step = 0; step < 10; step++) {
      lines.append("{\"step\": ").append(step).append(", \"l\": 1}\n");
    }
    Path file = metrics(lines.toString());

    MetricsRead first = reader.read(file, MetricsPosition.START, false);

    assertThat(first.more()).isTrue();
    assertThat(first.points()).hasSize(64 / 20);
    assertThat(first.position().offset()).isEqualTo(60);
  }

  @Test
  void aMissingFileIsNothingReportedYet() throws IOException {
    MetricsPosition at = new MetricsPosition(10, 3, false);

    MetricsRead read = reader.read(dir.resolve("absent.jsonl"), at, false);

    assertThat(read.points()).isEmpty();
    assertThat(read.position()).isEqualTo(at);
  }

  @Test
  void aFileShorterThanTheOffsetIsANewFileReadFromItsStart() throws IOException {
    Path file = metrics("{\"step\": 7, \"loss\": 1}\n");

    MetricsRead read = reader.read(file, new MetricsPosition(500, 6, false), false);

    assertThat(read.points()).containsExactly(point(7, Map.of("loss", 1.0)));
  }

  @Test
  void aSymbolicLinkIsRefused() throws IOException {
    Path target = metrics("{\"loss\": 1}\n");
    Path link = Files.createSymbolicLink(dir.resolve("link.jsonl"), target);

    assertThatThrownBy(() -> reader.read(link, MetricsPosition.START, false))
        .isInstanceOf(NotARegularFileException.class)
        .extracting(e -> ((NotARegularFileException) e).kind())
        .isEqualTo("a symbolic link");
  }

  @Test
  void aFifoIsRefusedAtOnceWithoutWaitingForAWriter() throws Exception {
    Path fifo = dir.resolve("fifo.jsonl");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor()).as("mkfifo's exit status").isZero();

    assertTimeoutPreemptively(
        HANG,
        () ->
            assertThatThrownBy(() -> reader.read(fifo, MetricsPosition.START, false))
                .isInstanceOf(NotARegularFileException.class)
                .extracting(e -> ((NotARegularFileException) e).kind())
                .isEqualTo("a FIFO"));
  }

  @Test
  void aDirectoryIsRefused() throws IOException {
    Path directory = Files.createDirectory(dir.resolve("metrics.d"));

    assertThatThrownBy(() -> reader.read(directory, MetricsPosition.START, false))
        .isInstanceOf(NotARegularFileException.class);
  }

  @Test
  void theDefaultCapsHoldARealisticLine() throws IOException {
    Path file = metrics("{\"step\": 1, \"val_loss\": 0.31, \"val_acc\": 0.88, \"lr\": 3e-4}\n");

    assertThat(new MetricsFileReader().read(file, MetricsPosition.START, false).points())
        .containsExactly(point(1, Map.of("val_loss", 0.31, "val_acc", 0.88, "lr", 3e-4)));
  }
}
