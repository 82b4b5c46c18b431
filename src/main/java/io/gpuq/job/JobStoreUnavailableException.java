package io.gpuq.job;

/**
 * The store could not write, for now (H2 on a full disk, a database that is down): what was handed
 * in may be tried again later.
 */
public class JobStoreUnavailableException extends RuntimeException {

  public JobStoreUnavailableException(Throwable cause) {
    super(cause.getMessage(), cause);
  }
}
