package io.gpuq.reported;

import io.gpuq.fs.SafeFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the lines a run appended to its metrics file ({@code GPUQ_METRICS_FILE}) since the last
 * read. The file belongs to the job, which may have replaced it by anything: it is opened through
 * {@link SafeFiles} (a symbolic link, a FIFO or a directory is refused with {@link
 * io.gpuq.fs.NotARegularFileException}), at most {@code maxBytesPerRead} bytes are read at a time,
 * and a line longer than {@code maxLineBytes} is skipped without being held in memory.
 *
 * <p>Only complete lines are consumed: a line still being written waits for its newline, unless the
 * run has ended ({@code ended}), when the last line counts without one. A line that is not a
 * metrics line ({@link MetricLineParser}) is counted and skipped. A file shorter than the offset
 * was replaced by a new one, which is read from its start.
 */
public final class MetricsFileReader {

  public static final int DEFAULT_MAX_BYTES_PER_READ = 1024 * 1024;
  public static final int DEFAULT_MAX_LINE_BYTES = 16 * 1024;

  private final int maxBytesPerRead;
  private final int maxLineBytes;

  public MetricsFileReader() {
    this(DEFAULT_MAX_BYTES_PER_READ, DEFAULT_MAX_LINE_BYTES);
  }

  public MetricsFileReader(int maxBytesPerRead, int maxLineBytes) {
    if (maxLineBytes < 1 || maxBytesPerRead <= maxLineBytes) {
      // A read must hold a whole line and one byte more, or an over-long line would never be
      // told from one that is still being written.
      throw new IllegalArgumentException("need 1 <= maxLineBytes < maxBytesPerRead");
    }
    this.maxBytesPerRead = maxBytesPerRead;
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * The points of the lines completed since {@code from}.
   *
   * @param ended whether the run has ended, so that a last line without a newline is complete
   * @throws io.gpuq.fs.NotARegularFileException when the file was replaced by a link, FIFO, ...
   * @throws IOException when it cannot be read; a missing file is no error (nothing reported yet)
   */
  public MetricsRead read(Path file, MetricsPosition from, boolean ended) throws IOException {
    try (FileChannel channel = SafeFiles.openForReading(file)) {
      long size = channel.size();
      MetricsPosition start =
          size < from.offset() ? new MetricsPosition(0, from.lastStep(), false) : from;
      int length = (int) Math.min(maxBytesPerRead, size - start.offset());
      byte[] bytes = SafeFiles.readBytes(channel, start.offset(), length);
      boolean atEnd = start.offset() + bytes.length >= size;
      return scan(bytes, start, ended && atEnd, !atEnd);
    } catch (NoSuchFileException e) {
      return MetricsRead.nothing(from);
    }
  }

  private MetricsRead scan(
      byte[] bytes, MetricsPosition start, boolean takeLastLine, boolean more) {
    List<MetricPoint> points = new ArrayList<>();
    long lastStep = start.lastStep();
    boolean skipping = start.skippingLine();
    int skipped = 0;
    int lineStart = 0;
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] != '\n') {
        continue;
      }
      if (skipping) {
        // The end of a long line, counted when it was found.
        skipping = false;
      } else {
        Optional<MetricPoint> point = line(bytes, lineStart, i - lineStart, lastStep);
        if (point.isPresent()) {
          points.add(point.get());
          lastStep = point.get().step();
        } else {
          skipped++;
        }
      }
      lineStart = i + 1;
    }
    int rest = bytes.length - lineStart;
    int consumed = lineStart;
    if (rest > 0 && (skipping || rest > maxLineBytes)) {
      if (!skipping) {
        skipped++;
      }
      skipping = true;
      consumed = bytes.length;
    } else if (rest > 0 && takeLastLine) {
      Optional<MetricPoint> point = line(bytes, lineStart, rest, lastStep);
      if (point.isPresent()) {
        points.add(point.get());
        lastStep = point.get().step();
      } else {
        skipped++;
      }
      consumed = bytes.length;
    }
    MetricsPosition next = new MetricsPosition(start.offset() + consumed, lastStep, skipping);
    return new MetricsRead(points, next, skipped, more);
  }

  private Optional<MetricPoint> line(byte[] bytes, int offset, int length, long lastStep) {
    if (length > maxLineBytes) {
      return Optional.empty();
    }
    return MetricLineParser.parse(bytes, offset, length, lastStep);
  }
}
