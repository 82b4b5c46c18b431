package io.gpuq.reported;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Reading a metrics file while the run is still writing it, in pieces cut anywhere (inside a line,
 * inside a UTF-8 character, inside an over-long line), finds exactly what one read of the finished
 * file finds: the same points in the same order, the same count of skipped lines.
 */
class MetricsFileReaderProperties {

  /** 32-byte lines at most, 64 bytes a read: many lines here are too long, many reads short. */
  private final MetricsFileReader reader = new MetricsFileReader(64, 32);

  record Outcome(List<MetricPoint> points, int skipped) {}

  @Property(tries = 300)
  void readingAsTheFileGrowsFindsWhatOneReadOfTheFinishedFileFinds(
      @ForAll("contents") String content, @ForAll("cuts") List<Double> cuts) throws IOException {
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    Path dir = Files.createTempDirectory("metrics-property-");
    try {
      Path growing = dir.resolve("growing.jsonl");
      Path finished = Files.write(dir.resolve("finished.jsonl"), bytes);
      Files.write(growing, new byte[0]);

      Outcome whole = readAll(finished, MetricsPosition.START, true, new Outcome(List.of(), 0));
      Outcome pieces = new Outcome(List.of(), 0);
      MetricsPosition position = MetricsPosition.START;
      int written = 0;
      for (int cut : cutPoints(cuts, bytes.length)) {
        Files.write(growing, Arrays.copyOfRange(bytes, written, cut), StandardOpenOption.APPEND);
        written = cut;
        Reading reading = read(growing, position, false, pieces);
        pieces = reading.outcome();
        position = reading.position();
      }
      Files.write(
          growing, Arrays.copyOfRange(bytes, written, bytes.length), StandardOpenOption.APPEND);
      pieces = readAll(growing, position, true, pieces);

      assertThat(pieces).isEqualTo(whole);
    } finally {
      try (var files = Files.list(dir)) {
        for (Path file : files.toList()) {
          Files.delete(file);
        }
      }
      Files.delete(dir);
    }
  }

  private record Reading(Outcome outcome, MetricsPosition position) {}

  private Reading read(Path file, MetricsPosition from, boolean ended, Outcome so)
      throws IOException {
    List<MetricPoint> points = new ArrayList<>(so.points());
    int skipped = so.skipped();
    MetricsPosition position = from;
    MetricsRead read;
    do {
      read = reader.read(file, position, ended);
      points.addAll(read.points());
      skipped += read.skippedLines();
      position = read.position();
    } while (read.more());
    return new Reading(new Outcome(points, skipped), position);
  }

  private Outcome readAll(Path file, MetricsPosition from, boolean ended, Outcome so)
      throws IOException {
    return read(file, from, ended, so).outcome();
  }

  private static List<Integer> cutPoints(List<Double> fractions, int length) {
    return fractions.stream().map(f -> (int) (f * length)).sorted().toList();
  }

  @Provide
  Arbitrary<String> contents() {
    Arbitrary<String> valid =
        Arbitraries.integers()
            .between(0, 999)
            .map(step -> "{\"step\": " + step + ", \"loss\": 0." + step + "}");
    Arbitrary<String> withoutStep =
        Arbitraries.doubles().between(0, 9).ofScale(2).map(v -> "{\"l\": " + v + "}");
    Arbitrary<String> unicode = Arbitraries.of("{\"é✓\": 1}", "{\"\uD83D\uDE00\": 2}");
    Arbitrary<String> garbage =
        Arbitraries.of("", "nope", "{\"loss\": \"x\"}", "[1]", "{\"step\": 3}", "{\"a\": 1,}");
    Arbitrary<String> longLine =
        Arbitraries.integers().between(33, 200).map(n -> "{\"x\": \"" + "y".repeat(n) + "\"}");
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(5, valid),
            net.jqwik.api.Tuple.of(2, withoutStep),
            net.jqwik.api.Tuple.of(1, unicode),
            net.jqwik.api.Tuple.of(2, garbage),
            net.jqwik.api.Tuple.of(1, longLine))
        .list()
        .ofMaxSize(12)
        .flatMap(
            lines ->
                Arbitraries.of(true, false)
                    .map(lastNewline -> String.join("\n", lines) + (lastNewline ? "\n" : "")));
  }

  @Provide
  Arbitrary<List<Double>> cuts() {
    return Arbitraries.doubles().between(0, 1).list().ofMaxSize(8);
  }
}
