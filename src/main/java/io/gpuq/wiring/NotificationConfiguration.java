package io.gpuq.wiring;

import io.gpuq.config.NotificationProperties;
import io.gpuq.meters.NotificationMeters;
import io.gpuq.node.NodeIdentity;
import io.gpuq.notify.Backoff;
import io.gpuq.notify.NotificationDuty;
import io.gpuq.notify.NotifyChecks;
import io.gpuq.notify.Outbox;
import io.gpuq.notify.WebhookSender;
import io.gpuq.storage.NotificationTable;
import io.gpuq.sweep.SweepStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Notifications (issue 37): the check of a submission's {@code notify}, the sender and the duty
 * that delivers (CompositionConfiguration runs it with the other duties).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(NotificationProperties.class)
public class NotificationConfiguration {

  private static final Logger log = LoggerFactory.getLogger(NotificationConfiguration.class);

  /** Beyond a try's own timeouts, before another node may take a row this node holds. */
  static final Duration CLAIM_MARGIN = Duration.ofSeconds(30);

  @Bean
  NotifyChecks notifyChecks(NotificationProperties properties) {
    if (!properties.allowedHosts().isEmpty()
        && (properties.secret() == null || properties.secret().isBlank())) {
      log.warn("gpuq.notifications.secret is not set: notifications are sent without a signature");
    }
    return new NotifyChecks(properties.allowedHosts());
  }

  @Bean(destroyMethod = "close")
  WebhookSender webhookSender(NotificationProperties properties, Clock clock) {
    return new WebhookSender(
        properties.secret(), properties.connectTimeout(), properties.timeout(), clock);
  }

  /** The outbox's table (issue 37), read by the duty and by a job's notifications endpoint. */
  @Bean
  Outbox notificationOutbox(DataSource dataSource) {
    return new NotificationTable(dataSource);
  }

  @Bean
  NotificationDuty notificationDuty(
      NotificationProperties properties,
      Outbox outbox,
      SweepStore sweeps,
      WebhookSender sender,
      MeterRegistry registry,
      NodeIdentity node,
      Clock clock) {
    return new NotificationDuty(
        outbox,
        sweeps,
        sender,
        new Backoff(
            properties.firstRetry(), properties.maxRetryInterval(), properties.giveUpAfter()),
        properties.connectTimeout().plus(properties.timeout()).plus(CLAIM_MARGIN),
        new NotificationMeters(registry, node.name()),
        clock,
        properties.interval());
  }
}
