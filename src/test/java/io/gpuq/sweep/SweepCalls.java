package io.gpuq.sweep;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.gpuq.support.HttpApi;
import java.net.URLEncoder;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** The sweep endpoints as the end-to-end tests call them, over real HTTP, failing on any error. */
record SweepCalls(HttpApi api) {

  /** Creates the sweep and returns it, failing unless gpuq answered 201. */
  JsonNode create(String json) {
    return expect(201, api.post("/api/v1/sweeps", json), "create");
  }

  JsonNode sweep(String id) {
    return expect(200, api.get("/api/v1/sweeps/" + id), "get sweep");
  }

  String state(String id) {
    return sweep(id).get("state").asString();
  }

  /**
   * Every row of the trials table, two per page to follow nextCursor; {@code query} like {@code
   * order=metric}.
   */
  List<JsonNode> trials(String id, String query) {
    List<JsonNode> rows = new ArrayList<>();
    String cursor = null;
    do {
      String path =
          "/api/v1/sweeps/"
              + id
              + "/trials?limit=2&"
              + query
              + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, UTF_8));
      JsonNode page = expect(200, api.get(path), "trials");
      page.get("items").forEach(rows::add);
      JsonNode next = page.get("nextCursor");
      cursor = next == null || next.isNull() ? null : next.asString();
    } while (cursor != null);
    return rows;
  }

  /** The steps of a job's metrics series, in the order gpuq read them. */
  List<Long> steps(String jobId) {
    List<Long> steps = new ArrayList<>();
    series(jobId).forEach(point -> steps.add(point.get("step").asLong()));
    return steps;
  }

  JsonNode series(String jobId) {
    return expect(200, api.get("/api/v1/jobs/" + jobId + "/metrics"), "metrics").get("series");
  }

  private static JsonNode expect(int status, HttpApi.Response response, String what) {
    if (response.status() != status) {
      throw new AssertionError(what + " answered " + response.status() + ": " + response.body());
    }
    return response.json();
  }
}
