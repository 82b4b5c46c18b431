package io.gpuq.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test that starts a Spring context, a database, a separate JVM, a tmpfs or real OS
 * accounts: it runs in {@code ./mvnw verify} (failsafe), not in {@code ./mvnw test} (surefire),
 * which keeps to plain unit and property tests so that it answers in under a minute. Subclasses
 * inherit it, so base classes such as {@link IntegrationTest} carry it for all their tests.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag(IntegrationTier.TAG)
// jqwik is an engine of its own that reads only its own tag (ApiFuzzProperties is an
// IntegrationTest).
@net.jqwik.api.Tag(IntegrationTier.TAG)
public @interface IntegrationTier {

  /** The JUnit tag behind this annotation, as the pom's surefire and failsafe select it. */
  String TAG = "integration";
}
