package io.gpuq.wiring;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.logging.LoggingApplicationListener;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;

/**
 * Keeps the application context's "Exception encountered during context initialization" WARN out of
 * the log when the failure is gpuq's refusal to start: that line repeats the whole chain of bean
 * creation errors in one long line, above the short block {@link StartRefusalAnalyzer} prints. Any
 * other failure keeps it (and Spring Boot's stack trace). Installed once logging is set up
 * (registered in {@code META-INF/spring.factories}, ordered after Spring Boot's logging listener).
 */
public class StartRefusalEchoFilter
    implements ApplicationListener<ApplicationEnvironmentPreparedEvent>, Ordered {

  private static final String ECHO = "Exception encountered during context initialization";

  @Override
  public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback
        && logback.getTurboFilterList().stream().noneMatch(Echo.class::isInstance)) {
      logback.addTurboFilter(new Echo());
    }
  }

  @Override
  public int getOrder() {
    return LoggingApplicationListener.DEFAULT_ORDER + 1;
  }

  static final class Echo extends TurboFilter {
    @Override
    public FilterReply decide(
        Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
      return level == Level.WARN && format != null && format.startsWith(ECHO)
          ? FilterReply.DENY
          : FilterReply.NEUTRAL;
    }
  }
}
