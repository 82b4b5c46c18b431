package io.gpuq.wiring;

import io.gpuq.api.ActuatorProblemFilter;
import io.gpuq.api.CallerArgumentResolver;
import io.gpuq.api.DotSegmentFilter;
import io.gpuq.api.JobLogs;
import io.gpuq.api.LogFollowers;
import io.gpuq.api.ProblemErrorReportValve;
import io.gpuq.api.ProblemResponsesDocumented;
import io.gpuq.api.RequestSizeLimitFilter;
import io.gpuq.api.StrictJson;
import io.gpuq.config.GpuqProperties;
import io.gpuq.job.Caller;
import io.gpuq.job.HostResources;
import io.gpuq.job.JobRequestValidator;
import io.gpuq.job.JobService;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.env.WorkerEnvironment;
import io.gpuq.retention.JobDirectories;
import io.gpuq.retention.JobFilesDeletion;
import io.gpuq.schedule.Scheduler;
import io.gpuq.startup.StartRefusedException;
import io.gpuq.text.Cpus;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

@Configuration(proxyBeanMethods = false)
public class ApiConfiguration {

  @Bean
  JobRequestValidator jobRequestValidator(GpuqProperties properties) {
    return new JobRequestValidator(
        WorkerEnvironment.reservedNames(),
        hostDefaults(properties.scheduler()),
        new JobRequestValidator.PreemptionSettings(
            properties.preemption().grace(), properties.preemption().maxGrace()));
  }

  /** {@code gpuq.scheduler.default-cpus} and {@code default-memory}, or a refusal to start. */
  static HostResources hostDefaults(GpuqProperties.Scheduler scheduler) {
    Long memory =
        SizeSetting.bytes(
            "gpuq.scheduler.default-memory",
            scheduler.defaultMemory(),
            "give a size such as 4GiB, or leave it unset for no host memory by default");
    Optional<Cpus> cpus = Cpus.exactly(scheduler.defaultCpus());
    if (cpus.isEmpty() || cpus.get().compareTo(Cpus.SMALLEST) < 0) {
      throw new StartRefusedException(
          "gpuq.scheduler.default-cpus=" + scheduler.defaultCpus() + " is no number of cores",
          "give a number of cores, "
              + Cpus.SMALLEST
              + " or more, whole or in thousandths (such as 1 or 0.25)",
          null);
    }
    return new HostResources(cpus.get(), memory);
  }

  @Bean
  JsonMapperBuilderCustomizer strictJson() {
    return StrictJson::configure;
  }

  /**
   * Tomcat's own error answers (for requests it refuses before Spring sees them) as problems: its
   * host gets {@link ProblemErrorReportValve} instead of the HTML one Spring Boot installs.
   */
  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorReports() {
    return factory ->
        factory.addContextCustomizers(
            context -> {
              if (context.getParent() instanceof StandardHost host) {
                for (Valve valve : host.getPipeline().getValves()) {
                  if (valve instanceof ErrorReportValve) {
                    host.getPipeline().removeValve(valve);
                  }
                }
                host.getPipeline().addValve(new ProblemErrorReportValve());
                // The host adds a valve of this class at start unless one is there: this one is.
                host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
              }
            });
  }

  @Bean
  LogFollowers logFollowers(JobService jobs, GpuqProperties properties) {
    // Each new line reaches its followers within about a second, as the API promises.
    return new LogFollowers(
        jobs, Duration.ofMillis(250), properties.api().maxLogFollowersPerCaller());
  }

  @Bean
  JobLogs jobLogs(JobFiles files, LogFollowers followers) {
    return new JobLogs(files, followers);
  }

  @Bean
  JobFilesDeletion jobFilesDeletion(JobService jobs, JobFiles files, Scheduler scheduler) {
    return new JobFilesDeletion(
        jobs, new JobDirectories(files.layout()), scheduler.recordEnd()::endNotStoredYet);
  }

  @Bean
  FilterRegistrationBean<RequestSizeLimitFilter> requestSizeLimitFilter(GpuqProperties properties) {
    return ServletFilters.registered(
        new RequestSizeLimitFilter(properties.api().maxRequestBytes()),
        Ordered.HIGHEST_PRECEDENCE + 20,
        "/api/*");
  }

  /**
   * Before the token filter authorises a path that Spring MVC would read otherwise; after only the
   * web page's headers (UiConfiguration), which its 404s under /ui/ carry.
   */
  @Bean
  FilterRegistrationBean<DotSegmentFilter> dotSegmentFilter() {
    return ServletFilters.registered(new DotSegmentFilter(), Ordered.HIGHEST_PRECEDENCE + 1, "/*");
  }

  @Bean
  FilterRegistrationBean<ActuatorProblemFilter> actuatorProblemFilter() {
    return ServletFilters.registered(
        new ActuatorProblemFilter(), Ordered.HIGHEST_PRECEDENCE + 30, "/actuator/*");
  }

  /**
   * Handlers take the request's authenticated {@link Caller} as a plain argument, which the API
   * document leaves out: it is the bearer token, which the document names once.
   */
  @Bean
  WebMvcConfigurer callerArguments() {
    SpringDocUtils.getConfig().addRequestWrapperToIgnore(Caller.class);
    return new WebMvcConfigurer() {
      @Override
      public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
        resolvers.add(new CallerArgumentResolver());
      }
    };
  }

  @Bean
  ProblemResponsesDocumented problemResponsesDocumented() {
    return new ProblemResponsesDocumented();
  }

  @Bean
  OpenAPI gpuqOpenApi() {
    return new OpenAPI()
        .info(
            new Info()
                .title("gpuq")
                .version("v1")
                .description(
                    "GPU job scheduler for machine-learning training runs. Every /api endpoint"
                        + " needs 'Authorization: Bearer <token>'."))
        .components(
            new Components()
                .addSecuritySchemes(
                    "bearer", new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer")))
        .addSecurityItem(new SecurityRequirement().addList("bearer"));
  }
}
