package io.gpuq.notify;

import java.util.concurrent.CompletableFuture;

/** Sends one delivery: completes with the receiver's status, or exceptionally when none came. */
public interface Sender {

  /**
   * @param deliveryId the row's id, the same on every try
   */
  CompletableFuture<Integer> post(String url, String deliveryId, String body);
}
