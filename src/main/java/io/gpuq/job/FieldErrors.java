package io.gpuq.job;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The mistakes found in one request, job or sweep, bounded: an answer lists at most {@value
 * #MAX_REPORTED}, and says how many more it left out.
 */
public final class FieldErrors {

  /** The most mistakes one answer lists; a request with more says how many it left out. */
  public static final int MAX_REPORTED = 20;

  private final List<FieldError> list = new ArrayList<>();
  private int leftOut;

  public void add(String field, String message) {
    if (list.size() < MAX_REPORTED) {
      list.add(new FieldError(field, message));
    } else {
      leftOut++;
    }
  }

  public boolean isEmpty() {
    return list.isEmpty();
  }

  /** Throws the exception {@code invalid} makes of the mistakes found, if there are any. */
  public void throwIfAny(Function<List<FieldError>, ? extends RuntimeException> invalid) {
    if (!list.isEmpty()) {
      List<FieldError> reported = new ArrayList<>(list);
      if (leftOut > 0) {
        reported.add(new FieldError("", leftOut + " more mistakes are not listed"));
      }
      throw invalid.apply(reported);
    }
  }
}
