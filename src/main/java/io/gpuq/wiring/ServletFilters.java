package io.gpuq.wiring;

import jakarta.servlet.Filter;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/** gpuq's servlet filters, each registered on its paths at its place in the chain. */
final class ServletFilters {

  private ServletFilters() {}

  /**
   * @param order its place in the chain, lowest first
   * @param urlPatterns the paths it filters
   */
  static <F extends Filter> FilterRegistrationBean<F> registered(
      F filter, int order, String... urlPatterns) {
    FilterRegistrationBean<F> registration = new FilterRegistrationBean<>(filter);
    registration.addUrlPatterns(urlPatterns);
    registration.setOrder(order);
    return registration;
  }
}
