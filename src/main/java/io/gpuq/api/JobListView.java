package io.gpuq.api;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

@Schema(name = "JobList")
public record JobListView(
    List<JobView> items,
    @Schema(description = "pass as ?cursor= for the next (older) page; null on the last page")
        String nextCursor) {}
