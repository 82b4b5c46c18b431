package io.gpuq.security;

import io.gpuq.config.GpuqProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {

  @Bean
  TokenRegistry tokenRegistry(GpuqProperties properties) {
    return new TokenRegistry(
        properties.auth().tokens(), properties.dataDir(), properties.auth().minTokenLength());
  }

  @Bean
  FilterRegistrationBean<TokenAuthenticationFilter> tokenAuthenticationFilter(
      TokenRegistry tokens, GpuqProperties properties) {
    FilterRegistrationBean<TokenAuthenticationFilter> registration =
        new FilterRegistrationBean<>(
            new TokenAuthenticationFilter(tokens, properties.auth().publicActuator()));
    registration.addUrlPatterns("/*");
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
    return registration;
  }
}
