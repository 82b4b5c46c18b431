package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.job.Caller;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.core.MethodParameter;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.context.request.ServletWebRequest;

@DisplayName("A handler's Caller argument is the request's authenticated caller, or none is served")
class CallerArgumentResolverTest {

  private final CallerArgumentResolver resolver = new CallerArgumentResolver();

  @SuppressWarnings("unused")
  static void handler(Caller caller, String id) {}

  private static MethodParameter parameter(int index) throws NoSuchMethodException {
    return new MethodParameter(
        CallerArgumentResolverTest.class.getDeclaredMethod("handler", Caller.class, String.class),
        index);
  }

  @Test
  void takes_only_caller_arguments() throws Exception {
    assertThat(resolver.supportsParameter(parameter(0))).isTrue();
    assertThat(resolver.supportsParameter(parameter(1))).isFalse();
  }

  @Test
  void gives_the_caller_the_token_filter_authenticated() throws Exception {
    Caller alice = new Caller("alice", Caller.Role.SUBMITTER);
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/v1/jobs");
    request.setAttribute(CallerAttribute.NAME, alice);

    assertThat(resolver.resolveArgument(parameter(0), null, new ServletWebRequest(request), null))
        .isSameAs(alice);
  }

  @Test
  void refuses_a_request_that_no_token_filter_authenticated() throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/v1/jobs");

    assertThatThrownBy(
            () ->
                resolver.resolveArgument(parameter(0), null, new ServletWebRequest(request), null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no authenticated caller");
  }
}
