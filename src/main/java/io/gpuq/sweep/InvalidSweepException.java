package io.gpuq.sweep;

import io.gpuq.job.FieldError;
import io.gpuq.job.InvalidJobRequestException;
import java.util.List;

/**
 * A sweep request that cannot become a sweep; every mistake is listed with its field. It is an
 * invalid job request too, so the API answers it as one: a 400 problem naming the fields.
 */
public class InvalidSweepException extends InvalidJobRequestException {

  public InvalidSweepException(List<FieldError> errors) {
    super(errors);
  }

  public InvalidSweepException(String field, String message) {
    super(field, message);
  }
}
