package io.gpuq.wiring;

import io.gpuq.startup.StartRefusedException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Turns gpuq's refusal to start, however deep in bean creation it was raised, into Spring Boot's
 * short "APPLICATION FAILED TO START" block: what is wrong and what to do, without the stack trace
 * an operator would otherwise dig the reason out of. Registered in {@code
 * META-INF/spring.factories}.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
public class StartRefusalAnalyzer extends AbstractFailureAnalyzer<StartRefusedException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, StartRefusedException refusal) {
    return new FailureAnalysis(
        StartRefusedException.PREFIX + refusal.problem() + ".",
        capitalized(refusal.action()) + ".",
        refusal);
  }

  private static String capitalized(String text) {
    return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }
}
