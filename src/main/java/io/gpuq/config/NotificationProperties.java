package io.gpuq.config;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Notifications (issue 37), under {@code gpuq.notifications.*} (docs/configuration.md).
 *
 * @param allowedHosts the hosts a {@code notify} URL may name; none by default, and then a job or
 *     sweep with {@code notify} is refused: notifications are off until an operator opts in
 * @param secret the key of each delivery's {@code X-Gpuq-Signature}; empty: deliveries are not
 *     signed
 * @param firstRetry the wait after a first failed try; it doubles after each further one
 * @param maxRetryInterval the longest wait between two tries
 * @param giveUpAfter no try later than this after the event: the delivery is given up
 * @param connectTimeout how long a try waits to connect
 * @param timeout how long a try waits for the whole answer
 * @param interval how often each node looks for events and due deliveries
 */
@ConfigurationProperties("gpuq.notifications")
public record NotificationProperties(
    List<String> allowedHosts,
    String secret,
    @DefaultValue("5s") Duration firstRetry,
    @DefaultValue("1h") Duration maxRetryInterval,
    @DefaultValue("24h") Duration giveUpAfter,
    @DefaultValue("5s") Duration connectTimeout,
    @DefaultValue("10s") Duration timeout,
    @DefaultValue("1s") Duration interval) {

  public NotificationProperties {
    allowedHosts = allowedHosts == null ? List.of() : List.copyOf(allowedHosts);
  }
}
