package io.gpuq.guard;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Tells from the end of a worker's log whether it died of GPU out-of-memory, and which {@link
 * OomSignature} says so. The caller decides that the worker died; this only reads the evidence.
 *
 * <p>Lines that are informational or warning records of glog/absl (JAX, XLA, TensorFlow) or of
 * torch's C++ core are never evidence: those libraries log failed allocations they recover from at
 * those levels (XLA's "ran out of memory trying to allocate ... The caller indicates that this is
 * not a failure", the CUDA driver's "failed to allocate ... CUDA_ERROR_OUT_OF_MEMORY" before a
 * retry with a smaller size). Pinned host memory ("bytes on host") is host memory.
 *
 * <p>When several lines match, the last one is reported: it is nearest to the death.
 */
public final class OomRecognizer {

  /** How much of a log's end is worth reading: a traceback and the messages before it. */
  public static final int DEFAULT_TAIL_BYTES = 64 * 1024;

  private static final Pattern ANSI_ESCAPE = Pattern.compile("\u001B\\[[0-9;?]*[ -/]*[@-~]");

  // Prefixes that launchers put before every line of a rank: "[rank0]: ", "[default0]:".
  private static final String RANK_PREFIX = "(?:\\[(?:rank|default)\\d+\\]:\\s*)?";

  private static final Pattern NON_FATAL_RECORD =
      Pattern.compile(
          "^"
              + RANK_PREFIX
              + "(?:"
              // glog and absl: "W0501 12:00:00.123456  1234 bfc_allocator.cc:291] ...", also
              // "W0000 00:00:1714000000.123456 ..." before absl knows the time
              + "[IW]\\d{4} \\d\\d:\\d\\d:[\\d.]+\\s+\\d+\\s+[^\\]\\s]+:\\d+\\]"
              // TensorFlow and older XLA: "2024-05-01 12:00:00.123456: W external/.../x.cc:291] "
              + "|\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d+: [IW] \\S+:\\d+\\]"
              // torch's C++ warnings: "[W219 11:47:05.252714350 AllocatorConfig.cpp:28] Warning"
              + "|\\[[IW](?:\\d{4} [\\d:.]+)? [^\\]]*:\\d+\\]"
              + ")");

  // Every signature contains one of these; most lines contain none and skip the regexes.
  private static final List<String> KEYWORDS =
      List.of("emory", "EMORY", "ALLOC", "RESOURCE_EXHAUSTED", "OOM when");

  private static final List<Pattern> NOT_EVIDENCE =
      List.of(
          Pattern.compile("The caller indicates that this is not a failure"),
          Pattern.compile("\\bbytes on host\\b"));

  /** Looks for evidence in a log tail. */
  public Optional<OomMatch> recognize(CharSequence logTail) {
    return recognize(lines(logTail));
  }

  /** Looks for evidence in the last lines of a log, oldest first. */
  public Optional<OomMatch> recognize(List<String> lines) {
    for (int i = lines.size() - 1; i >= 0; i--) {
      String line = lines.get(i);
      if (!mentionsMemory(line)) {
        continue;
      }
      if (line.indexOf('\u001B') >= 0) {
        line = ANSI_ESCAPE.matcher(line).replaceAll("");
      }
      if (!isEvidence(line)) {
        continue;
      }
      for (OomSignature signature : OomSignature.values()) {
        if (signature.matches(line)) {
          return Optional.of(new OomMatch(signature, line));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Looks for evidence in the last {@code maxBytes} of a log file. A line cut by the start of that
   * window is ignored; a missing file has no evidence.
   */
  public Optional<OomMatch> recognizeFileTail(Path log, int maxBytes) throws IOException {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
    }
    if (!Files.isRegularFile(log)) {
      return Optional.empty();
    }
    try (SeekableByteChannel channel = Files.newByteChannel(log)) {
      long size = channel.size();
      long start = Math.max(0, size - maxBytes);
      ByteBuffer buffer = ByteBuffer.allocate((int) (size - start));
      channel.position(start);
      while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
        // read until the window is full or the file ends
      }
      String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
      if (start > 0) {
        int firstBreak = indexOfLineBreak(text);
        text = firstBreak < 0 ? "" : text.substring(firstBreak + 1);
      }
      return recognize(text);
    }
  }

  /** Splits at \n, \r\n and \r: progress bars redraw themselves with a bare \r. */
  private static List<String> lines(CharSequence text) {
    List<String> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n' || c == '\r') {
        lines.add(text.subSequence(start, i).toString());
        if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
          i++;
        }
        start = i + 1;
      }
    }
    lines.add(text.subSequence(start, text.length()).toString());
    return lines;
  }

  private static boolean mentionsMemory(String line) {
    for (String keyword : KEYWORDS) {
      if (line.contains(keyword)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isEvidence(String line) {
    if (NON_FATAL_RECORD.matcher(line).find()) {
      return false;
    }
    return NOT_EVIDENCE.stream().noneMatch(p -> p.matcher(line).find());
  }

  private static int indexOfLineBreak(String text) {
    int newline = text.indexOf('\n');
    int carriageReturn = text.indexOf('\r');
    if (newline < 0) {
      return carriageReturn;
    }
    return carriageReturn < 0 ? newline : Math.min(newline, carriageReturn);
  }
}
