package io.gpuq.job;

/**
 * A read the database cancelled because it outlasted its timeout ({@code gpuq.api.query-timeout}):
 * the request was fine, and the same one may well succeed once the database is less loaded. The
 * storage adapters throw it in place of their driver's or framework's own timeout exception.
 */
public class StoreTimeoutException extends RuntimeException {

  public StoreTimeoutException(Throwable cause) {
    super(cause.getMessage(), cause);
  }
}
