package io.gpuq.api;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

@Schema(name = "SweepList")
public record SweepListView(
    List<SweepView> items,
    @Schema(description = "pass as ?cursor= for the next (older) page; null on the last page")
        String nextCursor) {}
