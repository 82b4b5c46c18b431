package io.gpuq.api;

import io.gpuq.job.Caller;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Gives a handler's {@link Caller} argument the request's authenticated caller ({@link
 * CallerAttribute}), so that a handler declares just {@code Caller caller}. The token filter
 * answers 401 to an API request without a valid token before any handler runs: a handler reached
 * without a caller is a wiring fault, refused loudly rather than served as anyone.
 */
public final class CallerArgumentResolver implements HandlerMethodArgumentResolver {

  @Override
  public boolean supportsParameter(MethodParameter parameter) {
    return parameter.getParameterType() == Caller.class;
  }

  @Override
  public Caller resolveArgument(
      MethodParameter parameter,
      ModelAndViewContainer mavContainer,
      NativeWebRequest webRequest,
      WebDataBinderFactory binderFactory) {
    if (webRequest.getAttribute(CallerAttribute.NAME, RequestAttributes.SCOPE_REQUEST)
        instanceof Caller caller) {
      return caller;
    }
    throw new IllegalStateException(
        "no authenticated caller for "
            + parameter.getExecutable()
            + ": the token filter must run before every handler that takes a Caller");
  }
}
