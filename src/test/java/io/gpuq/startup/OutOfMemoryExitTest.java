package io.gpuq.startup;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.duty.PeriodicDuties;
import io.gpuq.duty.PeriodicDuty;
import io.gpuq.support.IntegrationTier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The in-process half of {@code -XX:+ExitOnOutOfMemoryError}, in JVMs of its own started without
 * the flag, each ending with an error that code throws (as H2's "Capacity: ..." or NIO's "Direct
 * buffer memory"), which the flag would not catch.
 */
@IntegrationTier
@DisplayName("An OutOfMemoryError ends the JVM")
class OutOfMemoryExitTest {

  @Test
  void whenAThreadDiesOfOne() throws Exception {
    Ended ended = run(DyingThread.class);

    assertThat(ended.status()).as(ended.output()).isEqualTo(OutOfMemoryExit.EXIT_STATUS);
    assertThat(ended.output())
        .contains("Terminating due to java.lang.OutOfMemoryError: Capacity: 227816421")
        .doesNotContain("still running");
  }

  @Test
  void whenAPeriodicDutyThatWouldOtherwiseRunAgainThrowsOne() throws Exception {
    Ended ended = run(FailingDuty.class);

    assertThat(ended.status()).as(ended.output()).isEqualTo(OutOfMemoryExit.EXIT_STATUS);
    assertThat(ended.output()).contains("Direct buffer memory").doesNotContain("still running");
  }

  @Test
  void notWhenAThreadDiesOfSomethingElse() throws Exception {
    Ended ended = run(OtherError.class);

    assertThat(ended.status()).as(ended.output()).isZero();
    assertThat(ended.output()).contains("still running");
  }

  @Test
  void recognisesOneAmongTheCauses() {
    RuntimeException wrapped =
        new RuntimeException("a write failed", new IllegalStateException(new OutOfMemoryError()));

    assertThat(OutOfMemoryExit.isOutOfMemory(wrapped)).isTrue();
    assertThat(OutOfMemoryExit.isOutOfMemory(new StackOverflowError())).isFalse();
    assertThat(OutOfMemoryExit.isOutOfMemory(new RuntimeException("no"))).isFalse();
  }

  /** Installs the handler as gpuq's main does, then a thread dies of an OutOfMemoryError. */
  public static final class DyingThread {
    public static void main(String[] args) throws Exception {
      OutOfMemoryExit.installAsDefaultHandler();
      Thread writer =
          new Thread(
              () -> {
                throw new OutOfMemoryError("Capacity: 227816421");
              });
      writer.start();
      writer.join();
      Thread.sleep(2000);
      System.out.println("still running");
    }
  }

  /** A thread dying of anything else is reported as before, and the JVM goes on. */
  public static final class OtherError {
    public static void main(String[] args) throws Exception {
      OutOfMemoryExit.installAsDefaultHandler();
      Thread writer =
          new Thread(
              () -> {
                throw new IllegalStateException("not memory");
              });
      writer.start();
      writer.join();
      System.out.println("still running");
    }
  }

  /** PeriodicDuties survives a duty's failures, but not this one. */
  public static final class FailingDuty {
    public static void main(String[] args) throws Exception {
      PeriodicDuties duties =
          new PeriodicDuties(
              List.of(
                  new PeriodicDuty() {
                    @Override
                    public String name() {
                      return "allocating";
                    }

                    @Override
                    public Duration interval() {
                      return Duration.ofMillis(50);
                    }

                    @Override
                    public void runOnce() {
                      throw new OutOfMemoryError("Direct buffer memory");
                    }
                  }));
      duties.start();
      Thread.sleep(3000);
      System.out.println("still running");
    }
  }

  private record Ended(int status, String output) {}

  private static Ended run(Class<?> main) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty(
                    "surefire.test.class.path", System.getProperty("java.class.path")),
                main.getName())
            .redirectErrorStream(true)
            .start();
    String output;
    try {
      output = new String(process.getInputStream().readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("still running after 60 s:\n" + output);
    }
    return new Ended(process.exitValue(), output);
  }
}
