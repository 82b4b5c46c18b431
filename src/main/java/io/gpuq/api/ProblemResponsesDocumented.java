package io.gpuq.api;

import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.http.ProblemDetail;

/**
 * Documents every error answer of the API as what it is, an RFC 9457 problem ({@code
 * application/problem+json}, {@link ProblemDetail}), in one place: the controllers' {@code
 * ApiResponse}s give an error's status and meaning only. Also in one place: the 401 of every {@code
 * /api} operation, all of which need a bearer token, and the 413 of every operation that takes a
 * body, which the request size filter answers before any controller.
 */
public final class ProblemResponsesDocumented implements OpenApiCustomizer {

  static final String MEDIA_TYPE = "application/problem+json";

  /** The paths the token filter answers 401 without a valid bearer token. */
  private static final String AUTHENTICATED_PATHS = "/api/";

  private static final String UNAUTHORIZED = "401";

  private static final String TOO_LARGE = "413";

  @Override
  public void customise(OpenAPI api) {
    if (api.getComponents() == null) {
      api.setComponents(new Components());
    }
    ModelConverters.getInstance()
        .read(ProblemDetail.class)
        .forEach(api.getComponents()::addSchemas);
    if (api.getPaths() == null) {
      return;
    }
    api.getPaths()
        .forEach(
            (path, item) -> {
              if (path.startsWith(AUTHENTICATED_PATHS)) {
                item.readOperations()
                    .forEach(
                        operation -> {
                          add(operation, UNAUTHORIZED, "no or invalid bearer token");
                          if (operation.getRequestBody() != null) {
                            add(
                                operation,
                                TOO_LARGE,
                                "body larger than gpuq.api.max-request-bytes");
                          }
                        });
              }
            });
    api.getPaths().values().stream()
        .flatMap(path -> path.readOperations().stream())
        .map(Operation::getResponses)
        .filter(responses -> responses != null)
        .forEach(
            responses ->
                responses.forEach(
                    (code, response) -> {
                      if (isError(code)) {
                        response.setContent(problem());
                      }
                    }));
  }

  private static void add(Operation operation, String code, String description) {
    if (operation.getResponses() == null) {
      operation.setResponses(new ApiResponses());
    }
    if (!operation.getResponses().containsKey(code)) {
      operation.getResponses().addApiResponse(code, new ApiResponse().description(description));
    }
  }

  private static Content problem() {
    return new Content()
        .addMediaType(
            MEDIA_TYPE,
            new MediaType().schema(new Schema<>().$ref("#/components/schemas/ProblemDetail")));
  }

  private static boolean isError(String code) {
    return code.startsWith("4") || code.startsWith("5");
  }
}
