package io.gpuq.job;

/** The body's form: gpuq's own JSON, or a Slack incoming webhook's {@code {"text": ...}}. */
public enum NotifyFormat {
  JSON,
  SLACK;

  /** The word in a request and in the table. */
  public String word() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
