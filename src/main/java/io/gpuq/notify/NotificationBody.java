package io.gpuq.notify;

import static io.gpuq.text.JsonStrings.quote;

import io.gpuq.job.NotifyEvent;
import io.gpuq.job.NotifyFormat;
import java.time.Instant;
import java.util.Map;

/**
 * The body of a delivery, as JSON text (written here, without a JSON library in the core). gpuq's
 * form: {@code {"id", "event", "time", "job": {...}}} or {@code ..., "sweep": {...}}; Slack's
 * incoming-webhook form: {@code {"text": "..."}}.
 */
public final class NotificationBody {

  private NotificationBody() {}

  /** A job as an event found it. Null fields are written as JSON null. */
  public record JobFacts(
      String id,
      String name,
      String owner,
      String state,
      Integer exitCode,
      String failureMessage,
      Instant startedAt,
      Instant finishedAt) {}

  /**
   * A sweep as its end found it.
   *
   * @param counts its trials per state
   * @param bestJobId its best trial's job, or null (no metric, or no value reported)
   */
  public record SweepFacts(
      String id,
      String name,
      String owner,
      String state,
      Map<String, Long> counts,
      String bestJobId,
      Integer bestTrial,
      Double bestValue) {}

  /**
   * @param id the delivery's id, the same on every try, for receivers to de-duplicate
   */
  public static String ofJob(
      String id, NotifyEvent event, Instant time, JobFacts job, NotifyFormat format) {
    if (format == NotifyFormat.SLACK) {
      StringBuilder text =
          slackSubject("job", job.id(), job.name(), job.owner())
              .append(' ')
              .append(event == NotifyEvent.STARTED ? "started" : "ended " + job.state());
      if (job.exitCode() != null && event != NotifyEvent.STARTED) {
        text.append(", exit code ").append(job.exitCode());
      }
      if (job.failureMessage() != null && event != NotifyEvent.STARTED) {
        text.append(": ").append(job.failureMessage());
      }
      return slack(text.toString());
    }
    return head(id, event, time)
        + subject("job", job.id(), job.name(), job.owner(), job.state())
        + ",\"exitCode\":"
        + (job.exitCode() == null ? "null" : job.exitCode().toString())
        + ","
        + field("failureMessage", job.failureMessage())
        + ","
        + field("startedAt", text(job.startedAt()))
        + ","
        + field("finishedAt", text(job.finishedAt()))
        + "}}";
  }

  public static String ofSweep(
      String id, NotifyEvent event, Instant time, SweepFacts sweep, NotifyFormat format) {
    if (format == NotifyFormat.SLACK) {
      StringBuilder text =
          slackSubject("sweep", sweep.id(), sweep.name(), sweep.owner())
              .append(" is ")
              .append(sweep.state())
              .append(": ");
      StringBuilder counts = new StringBuilder();
      sweep
          .counts()
          .forEach(
              (state, n) -> {
                if (counts.length() > 0) {
                  counts.append(", ");
                }
                counts.append(n).append(' ').append(state);
              });
      text.append(counts.length() == 0 ? "no trials" : counts);
      if (sweep.bestJobId() != null) {
        text.append("; best trial ")
            .append(sweep.bestTrial())
            .append(" (")
            .append(sweep.bestJobId())
            .append(") at ")
            .append(number(sweep.bestValue()));
      }
      return slack(text.toString());
    }
    StringBuilder counts = new StringBuilder("{");
    sweep
        .counts()
        .forEach(
            (state, n) -> {
              if (counts.length() > 1) {
                counts.append(',');
              }
              counts.append(quote(state)).append(':').append(n);
            });
    counts.append('}');
    String best =
        sweep.bestJobId() == null
            ? "null"
            : "{"
                + field("jobId", sweep.bestJobId())
                + ",\"trial\":"
                + sweep.bestTrial()
                + ",\"value\":"
                + number(sweep.bestValue())
                + "}";
    return head(id, event, time)
        + subject("sweep", sweep.id(), sweep.name(), sweep.owner(), sweep.state())
        + ",\"counts\":"
        + counts
        + ",\"best\":"
        + best
        + "}}";
  }

  private static String head(String id, NotifyEvent event, Instant time) {
    return "{"
        + field("id", id)
        + ","
        + field("event", event.name())
        + ","
        + field("time", text(time));
  }

  /**
   * The start of the object an event is about, after its head: the same four fields first for a job
   * and a sweep; the caller adds its own and closes it.
   */
  private static String subject(String kind, String id, String name, String owner, String state) {
    return ","
        + quote(kind)
        + ":{"
        + String.join(
            ",",
            field("id", id),
            field("name", name),
            field("owner", owner),
            field("state", state));
  }

  /** How a Slack message names what it is about: {@code gpuq: job <name> (<id>) of <owner>}. */
  private static StringBuilder slackSubject(String kind, String id, String name, String owner) {
    return new StringBuilder("gpuq: ")
        .append(kind)
        .append(' ')
        .append(name == null ? id : name + " (" + id + ")")
        .append(" of ")
        .append(owner);
  }

  private static String slack(String text) {
    return "{" + field("text", text) + "}";
  }

  private static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }

  /** A finite number as JSON writes it; NaN and infinities (no JSON numbers) as null. */
  private static String number(Double value) {
    return value == null || value.isNaN() || value.isInfinite() ? "null" : value.toString();
  }

  private static String field(String name, String value) {
    return quote(name) + ":" + (value == null ? "null" : quote(value));
  }
}
