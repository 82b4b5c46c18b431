package io.gpuq;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class GpuqApplication {

  public static void main(String[] args) {
    SpringApplication.run(GpuqApplication.class, args);
  }
}
