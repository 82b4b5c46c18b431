package io.gpuq.api;

import java.io.IOException;

/** The request body is larger than {@code gpuq.api.max-request-bytes}. */
public class PayloadTooLargeException extends IOException {
  public PayloadTooLargeException(long limit) {
    super("the request body is larger than " + limit + " bytes");
  }
}
