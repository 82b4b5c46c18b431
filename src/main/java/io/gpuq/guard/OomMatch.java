package io.gpuq.guard;

/**
 * Evidence that a worker died of GPU out-of-memory.
 *
 * @param signature what matched
 * @param line the log line that matched, without terminal colour codes, cut to {@value
 *     #MAX_LINE_CHARS} characters
 */
public record OomMatch(OomSignature signature, String line) {

  public static final int MAX_LINE_CHARS = 500;

  public OomMatch {
    line = line.strip();
    if (line.length() > MAX_LINE_CHARS) {
      line = line.substring(0, MAX_LINE_CHARS - 1) + "…";
    }
  }

  /**
   * For the job's failure message: {@code GPU out of memory (PyTorch: CUDA out of memory): ...}.
   */
  public String describe() {
    return "GPU out of memory (" + signature.source() + ": " + signature.summary() + "): " + line;
  }
}
