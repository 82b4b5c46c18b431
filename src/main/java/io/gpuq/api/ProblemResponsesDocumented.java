package io.gpuq.api;

import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.http.ProblemDetail;

/**
 * Documents every error answer of the API as what it is, an RFC 9457 problem ({@code
 * application/problem+json}, {@link ProblemDetail}), in one place: the controllers' {@code
 * ApiResponse}s give an error's status and meaning only.
 */
public final class ProblemResponsesDocumented implements OpenApiCustomizer {

  static final String MEDIA_TYPE = "application/problem+json";

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
