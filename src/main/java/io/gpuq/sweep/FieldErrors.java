package io.gpuq.sweep;

import io.gpuq.job.FieldError;
import java.util.ArrayList;
import java.util.List;

/** The mistakes found in one request, bounded as the job validator bounds them. */
final class FieldErrors {

  /** The most mistakes one answer lists; a request with more says how many it left out. */
  static final int MAX_REPORTED = 20;

  private final List<FieldError> list = new ArrayList<>();
  private int leftOut;

  void add(String field, String message) {
    if (list.size() < MAX_REPORTED) {
      list.add(new FieldError(field, message));
    } else {
      leftOut++;
    }
  }

  boolean isEmpty() {
    return list.isEmpty();
  }

  void throwIfAny() {
    if (!list.isEmpty()) {
      List<FieldError> reported = new ArrayList<>(list);
      if (leftOut > 0) {
        reported.add(new FieldError("", leftOut + " more mistakes are not listed"));
      }
      throw new InvalidSweepException(reported);
    }
  }
}
