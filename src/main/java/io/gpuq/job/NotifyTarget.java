package io.gpuq.job;

import java.util.List;

/**
 * One checked {@code notify} entry: where to POST, on which events, in which form.
 *
 * @param url an http or https URL whose host the operator allows
 */
public record NotifyTarget(String url, List<NotifyEvent> on, NotifyFormat format) {

  public NotifyTarget {
    on = List.copyOf(on);
  }
}
