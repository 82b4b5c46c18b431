package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.security.TokenAuthenticationFilter;
import io.gpuq.security.TokenRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {

  private static final Logger log = LoggerFactory.getLogger(SecurityConfiguration.class);

  @Bean
  TokenRegistry tokenRegistry(GpuqProperties properties) {
    warnOfTokensOnTheCommandLine();
    return new TokenRegistry(
        properties.auth().tokens(), properties.dataDir(), properties.auth().minTokenLength());
  }

  /**
   * Every local account, every job included, can read a process's command line: tokens belong in
   * the environment or a config file, which only gpuq's own account can read.
   */
  private static void warnOfTokensOnTheCommandLine() {
    try {
      String commandLine =
          new String(Files.readAllBytes(Path.of("/proc/self/cmdline")), StandardCharsets.UTF_8);
      if (commandLine.contains("gpuq.auth.tokens") && commandLine.contains(".token=")) {
        log.warn(
            "API tokens were given on the command line, which every local account can read in"
                + " /proc/{}/cmdline: give them as environment variables (GPUQ_AUTH_TOKENS_0_TOKEN)"
                + " or in a config file instead",
            ProcessHandle.current().pid());
      }
    } catch (IOException e) {
      // No /proc: nothing to warn about.
    }
  }

  @Bean
  FilterRegistrationBean<TokenAuthenticationFilter> tokenAuthenticationFilter(
      TokenRegistry tokens, GpuqProperties properties) {
    return ServletFilters.registered(
        new TokenAuthenticationFilter(
            tokens, properties.auth().publicActuator(), properties.ui().enabled()),
        Ordered.HIGHEST_PRECEDENCE + 10,
        "/*");
  }
}
