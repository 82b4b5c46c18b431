package io.gpuq.notify;

import io.gpuq.job.FieldError;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.JobRequest;
import io.gpuq.job.NotifyEvent;
import io.gpuq.job.NotifyFormat;
import io.gpuq.job.NotifyTarget;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A submission's {@code notify} (issue 37), checked: each URL http or https, its host one the
 * operator lists in {@code gpuq.notifications.allowed-hosts} (none by default: notifications are
 * off until an operator opts in, so that no submitter can make gpuq POST into a network it reaches
 * and they do not), known events, at most {@value #MAX_TARGETS} entries. Every mistake names its
 * field.
 */
public final class NotifyChecks {

  /** Entries per job or sweep: each is one POST per event, and a job's end should stay cheap. */
  public static final int MAX_TARGETS = 8;

  static final int MAX_URL_LENGTH = 2000;

  private final Set<String> allowedHosts;

  /**
   * @param allowedHosts host names (or literal addresses) a URL may name, compared without case
   */
  public NotifyChecks(Collection<String> allowedHosts) {
    this.allowedHosts =
        allowedHosts == null
            ? Set.of()
            : allowedHosts.stream()
                .map(String::trim)
                .filter(h -> !h.isEmpty())
                .map(h -> h.toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
  }

  /**
   * The checked targets of a job ({@code sweep} false: STARTED, ENDED, FAILED) or of a sweep (DONE
   * only); an empty list for none.
   *
   * @throws InvalidJobRequestException naming each field that is wrong
   */
  public List<NotifyTarget> check(List<JobRequest.Notify> requested, boolean sweep) {
    if (requested == null || requested.isEmpty()) {
      return List.of();
    }
    if (requested.size() > MAX_TARGETS) {
      throw new InvalidJobRequestException("notify", "at most " + MAX_TARGETS + " entries");
    }
    List<FieldError> errors = new ArrayList<>();
    List<NotifyTarget> targets = new ArrayList<>();
    for (int i = 0; i < requested.size(); i++) {
      String field = "notify[" + i + "]";
      JobRequest.Notify entry = requested.get(i);
      if (entry == null) {
        errors.add(new FieldError(field, "must be an object with a url"));
        continue;
      }
      int before = errors.size();
      String url = checkedUrl(field + ".url", entry.url(), errors);
      List<NotifyEvent> on = checkedEvents(field + ".on", entry.on(), sweep, errors);
      NotifyFormat format = checkedFormat(field + ".format", entry.format(), errors);
      if (errors.size() == before) {
        targets.add(new NotifyTarget(url, on, format));
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidJobRequestException(errors);
    }
    return List.copyOf(targets);
  }

  private String checkedUrl(String field, String url, List<FieldError> errors) {
    if (url == null || url.isBlank()) {
      errors.add(new FieldError(field, "must be an http or https URL"));
      return null;
    }
    if (url.length() > MAX_URL_LENGTH) {
      errors.add(new FieldError(field, "at most " + MAX_URL_LENGTH + " characters"));
      return null;
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      errors.add(new FieldError(field, "is not a URL: " + e.getReason()));
      return null;
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      errors.add(new FieldError(field, "must be an http or https URL"));
      return null;
    }
    if (uri.getHost() == null) {
      errors.add(new FieldError(field, "names no host"));
      return null;
    }
    if (uri.getRawUserInfo() != null) {
      errors.add(new FieldError(field, "must not carry a user name or password"));
      return null;
    }
    String host = uri.getHost().toLowerCase(Locale.ROOT);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (allowedHosts.isEmpty()) {
      errors.add(
          new FieldError(
              field,
              "notifications are off: the operator must allow the host "
                  + host
                  + " in gpuq.notifications.allowed-hosts"));
      return null;
    }
    if (!allowedHosts.contains(host)) {
      errors.add(
          new FieldError(
              field,
              "host "
                  + host
                  + " is not allowed; the operator lists the allowed ones in"
                  + " gpuq.notifications.allowed-hosts"));
      return null;
    }
    return url;
  }

  private static List<NotifyEvent> checkedEvents(
      String field, List<String> on, boolean sweep, List<FieldError> errors) {
    if (on == null) {
      return List.of(sweep ? NotifyEvent.DONE : NotifyEvent.ENDED);
    }
    if (on.isEmpty()) {
      errors.add(new FieldError(field, "names no event"));
      return List.of();
    }
    Set<NotifyEvent> events = new LinkedHashSet<>();
    for (int j = 0; j < on.size(); j++) {
      String word = on.get(j);
      NotifyEvent event = null;
      for (NotifyEvent e : NotifyEvent.values()) {
        if (e.name().equalsIgnoreCase(word == null ? "" : word.trim())) {
          event = e;
        }
      }
      boolean allowed =
          event != null && (sweep ? event == NotifyEvent.DONE : event != NotifyEvent.DONE);
      if (!allowed) {
        errors.add(
            new FieldError(
                field + "[" + j + "]",
                sweep
                    ? "a sweep notifies on DONE (its trials' own events are not sent)"
                    : "one of STARTED, ENDED, FAILED"));
      } else {
        events.add(event);
      }
    }
    return List.copyOf(events);
  }

  private static NotifyFormat checkedFormat(String field, String format, List<FieldError> errors) {
    if (format == null) {
      return NotifyFormat.JSON;
    }
    for (NotifyFormat f : NotifyFormat.values()) {
      if (f.word().equalsIgnoreCase(format.trim())) {
        return f;
      }
    }
    errors.add(new FieldError(field, "json or slack"));
    return null;
  }
}
