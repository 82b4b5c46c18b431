package io.gpuq.wiring;

import io.gpuq.api.JobListingCache;
import io.gpuq.api.UiHeaders;
import io.gpuq.config.GpuqProperties;
import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.time.Duration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.CacheControl;
import org.springframework.web.filter.ShallowEtagHeaderFilter;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The web page (docs/ui.md): plain files from the jar under {@code /ui/}, no build step. Its files
 * are outside Spring Boot's static locations, so that {@code gpuq.ui.enabled=false} leaves nothing
 * of it. That property is read when the beans run, not by a condition: the jar's bean graph is
 * fixed at build time (Spring AOT), and a condition would be judged there, with the default.
 */
@Configuration(proxyBeanMethods = false)
public class UiConfiguration {

  /**
   * Weak ETags on the listings the page polls: an unchanged answer is a 304 with no body, so an
   * open page that has nothing new to show costs the network nothing and the browser no redraw. On
   * for every caller of these GETs (curl's {@code If-None-Match} too), page or not.
   */
  @Bean
  FilterRegistrationBean<ShallowEtagHeaderFilter> listingEtags() {
    ShallowEtagHeaderFilter filter = new ShallowEtagHeaderFilter();
    filter.setWriteWeakETag(true);
    return ServletFilters.registered(
        filter,
        Ordered.HIGHEST_PRECEDENCE + 40,
        "/api/v1/jobs",
        "/api/v1/gpus",
        "/api/v1/sweeps",
        "/api/v1/sweeps/*");
  }

  /**
   * Inside the ETag filter: a refresh of the job listing within a second of the same caller's same
   * query is answered from that answer's bytes, which the ETag filter hashes (304 when unchanged),
   * instead of being built again (docs/ui.md, "What a refresh costs"). It sees every write to jobs
   * and sweeps through this node's API, to forget its answers then. 128 answers of at most 512 KiB
   * (a default page of 100 jobs is well under) bound its memory to 64 MiB.
   */
  @Bean
  FilterRegistrationBean<JobListingCache> jobListingCache(Clock clock) {
    return ServletFilters.registered(
        new JobListingCache(clock, Duration.ofSeconds(1), 512 * 1024),
        Ordered.HIGHEST_PRECEDENCE + 41,
        "/api/v1/jobs",
        "/api/v1/jobs/*",
        "/api/v1/sweeps",
        "/api/v1/sweeps/*");
  }

  @Bean
  FilterRegistrationBean<UiHeaders> uiHeaders(GpuqProperties properties) {
    // First of all (the dot-segment filter comes after it), so that every filter's answer under
    // /ui/ carries them: the token filter's 401s, the dot-segment filter's 404s.
    FilterRegistrationBean<UiHeaders> registration =
        ServletFilters.registered(new UiHeaders(), Ordered.HIGHEST_PRECEDENCE, "/*");
    // And on the error dispatch: a request Tomcat refused before any filter ran (TRACE, 405) is
    // answered there, at /error, for the path it was sent to.
    registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ERROR);
    registration.setEnabled(properties.ui().enabled());
    return registration;
  }

  @Bean
  WebMvcConfigurer uiPage(GpuqProperties properties) {
    boolean enabled = properties.ui().enabled();
    return new WebMvcConfigurer() {
      @Override
      public void addResourceHandlers(ResourceHandlerRegistry registry) {
        if (enabled) {
          // Revalidated on each load (ETag/Last-Modified): a new gpuq's page is never mixed with
          // an old one's modules.
          registry
              .addResourceHandler("/ui/**")
              .addResourceLocations("classpath:/gpuq-ui/")
              .setCacheControl(CacheControl.noCache());
        }
      }

      @Override
      public void addViewControllers(ViewControllerRegistry registry) {
        if (enabled) {
          registry.addRedirectViewController("/", "/ui/");
          registry.addRedirectViewController("/ui", "/ui/");
          registry.addViewController("/ui/").setViewName("forward:/ui/index.html");
        }
      }
    };
  }
}
