package io.gpuq.notify;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * POSTs deliveries with the JDK's client: redirects never followed (a 3xx is a failed try, so that
 * an allowed host cannot send gpuq on to one that is not), a connect timeout and a timeout for the
 * whole answer, on threads of its own so that a slow receiver holds up no duty and no scheduling.
 * The client, and its threads, are made at the first delivery.
 */
public final class WebhookSender implements Sender, AutoCloseable {

  private final String secret;
  private final Duration connectTimeout;
  private final Duration timeout;
  private final Clock clock;
  private ExecutorService executor;
  private HttpClient client;

  /**
   * @param secret the operator's gpuq.notifications.secret; blank: deliveries are not signed
   */
  public WebhookSender(String secret, Duration connectTimeout, Duration timeout, Clock clock) {
    this.secret = secret == null || secret.isBlank() ? null : secret;
    this.connectTimeout = connectTimeout;
    this.timeout = timeout;
    this.clock = clock;
  }

  private synchronized HttpClient client() {
    if (client == null) {
      executor =
          Executors.newFixedThreadPool(
              2,
              r -> {
                Thread t = new Thread(r, "gpuq-notify");
                t.setDaemon(true);
                return t;
              });
      client =
          HttpClient.newBuilder()
              .followRedirects(HttpClient.Redirect.NEVER)
              .connectTimeout(connectTimeout)
              .executor(executor)
              .build();
    }
    return client;
  }

  @Override
  public CompletableFuture<Integer> post(String url, String deliveryId, String body) {
    long timestamp = clock.instant().getEpochSecond();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("User-Agent", "gpuq-notifications")
            .header("X-Gpuq-Delivery", deliveryId)
            .header(Signature.TIMESTAMP_HEADER, Long.toString(timestamp))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (secret != null) {
      request.header(Signature.HEADER, Signature.of(secret, timestamp, body));
    }
    return client()
        .sendAsync(request.build(), HttpResponse.BodyHandlers.discarding())
        .thenApply(HttpResponse::statusCode);
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      executor.shutdownNow();
    }
  }
}
