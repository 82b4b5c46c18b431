package io.gpuq.api;

import io.gpuq.config.GpuqProperties;
import io.gpuq.job.JobRequestValidator;
import io.gpuq.job.JobService;
import io.gpuq.launch.JobFiles;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import java.time.Duration;
import java.util.Set;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

@Configuration(proxyBeanMethods = false)
public class ApiConfiguration {

  @Bean
  JobRequestValidator jobRequestValidator(ReservedEnvironment reserved) {
    return new JobRequestValidator(reserved.names());
  }

  @Bean
  @ConditionalOnMissingBean
  ReservedEnvironment reservedEnvironment() {
    return () ->
        Set.of(
            "CUDA_VISIBLE_DEVICES",
            "CUDA_DEVICE_ORDER",
            "XLA_PYTHON_CLIENT_MEM_FRACTION",
            "XLA_PYTHON_CLIENT_PREALLOCATE",
            "GPUQ_JOB_ID",
            "GPUQ_GPU_MEMORY_BYTES",
            "TMPDIR");
  }

  @Bean
  JobLogs jobLogs(JobService jobs, JobFiles files) {
    return new JobLogs(jobs, files, Duration.ofMillis(100));
  }

  @Bean
  FilterRegistrationBean<RequestSizeLimitFilter> requestSizeLimitFilter(GpuqProperties properties) {
    FilterRegistrationBean<RequestSizeLimitFilter> registration =
        new FilterRegistrationBean<>(
            new RequestSizeLimitFilter(properties.api().maxRequestBytes()));
    registration.addUrlPatterns("/api/*");
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 20);
    return registration;
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
