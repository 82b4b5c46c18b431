package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.FieldErrors;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.schedule.OwnerStandings;
import io.gpuq.text.UserText;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/owners")
@Tag(name = "owners", description = "Who holds the GPUs: every owner's share, jobs and standing")
public class OwnerController {

  private final OwnerStandings owners;

  public OwnerController(OwnerStandings owners) {
    this.owners = owners;
  }

  @GetMapping
  @Operation(
      summary = "Every owner's share, jobs, holdings and fair-share standing",
      description =
          "Counted over every node from the database at each request, with the figures a"
              + " scheduling pass uses: what running jobs hold, recent usage, the cluster's"
              + " capacity. Owners lowest position first, the order fair share serves them in. An"
              + " admin sees every configured owner and every owner with jobs; a submitter sees"
              + " only their own row, and the cluster's totals.")
  @ApiResponse(responseCode = "200", description = "the owners and the totals")
  @ApiResponse(responseCode = "400", description = "a query parameter: this listing takes none")
  public OwnersView owners(
      Caller caller, @Parameter(hidden = true) @RequestParam Map<String, String> query) {
    // A parameter that filters nothing would answer as if it did: say so instead.
    FieldErrors errors = new FieldErrors();
    query.keySet().stream()
        .sorted()
        .forEach(
            name ->
                errors.add(
                    UserText.echo(name), "unknown query parameter: this listing takes none"));
    errors.throwIfAny(InvalidJobRequestException::new);
    return OwnersView.of(owners.now(), caller);
  }
}
