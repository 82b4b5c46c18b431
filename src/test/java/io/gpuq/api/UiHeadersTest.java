package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("Which paths are the web page's, as sent or as normalised")
class UiHeadersTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "/",
        "/ui",
        "/ui/",
        "/ui/app.js",
        "/ui/%2e%2e/api/v1/jobs",
        "/ui/%00",
        "/ui%00",
        "/ui%2f",
        "/ui;a=b",
        "//ui//x",
        "/%75i/",
        "/%75%69",
        "/ui%",
      })
  void the_page_and_anything_under_it(String path) {
    assertThat(UiHeaders.isUiPath(path)).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "",
        "/api/v1/jobs",
        "/uix",
        "/ui2/",
        "/ui%41",
        "/UI/",
        "/api/ui/",
        "/%zz",
        "/actuator/health",
      })
  void not_the_page(String path) {
    assertThat(UiHeaders.isUiPath(path)).isFalse();
  }
}
