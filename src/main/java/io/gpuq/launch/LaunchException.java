package io.gpuq.launch;

/** A worker could not be started; the message is shown to the user as the job's failure. */
public class LaunchException extends Exception {
  public LaunchException(String message) {
    super(message);
  }

  public LaunchException(String message, Throwable cause) {
    super(message, cause);
  }
}
