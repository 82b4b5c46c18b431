package io.gpuq.wiring;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The database's connection pool, as Spring Boot makes it, with what gpuq adds to it. */
@Configuration(proxyBeanMethods = false)
public class DatabasePoolConfiguration {

  /** Static: it must exist before the pool does, which it changes before its first connection. */
  @Bean
  static BeanPostProcessor closedDatabaseEviction() {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessBeforeInitialization(Object bean, String name) {
        if (bean instanceof HikariDataSource pool) {
          ClosedDatabaseEviction.install(pool);
        }
        return bean;
      }
    };
  }
}
