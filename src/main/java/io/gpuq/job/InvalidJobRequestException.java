package io.gpuq.job;

import java.util.List;
import java.util.stream.Collectors;

/** A request that cannot become a job; every mistake found is listed with its field. */
public class InvalidJobRequestException extends RuntimeException {

  private final List<FieldError> errors;

  public InvalidJobRequestException(List<FieldError> errors) {
    super(
        errors.stream().map(e -> e.field() + ": " + e.message()).collect(Collectors.joining("; ")));
    this.errors = List.copyOf(errors);
  }

  public InvalidJobRequestException(String field, String message) {
    this(List.of(new FieldError(field, message)));
  }

  public List<FieldError> errors() {
    return errors;
  }
}
