package io.gpuq.placement;

import io.gpuq.text.Cpus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;

/** Test-data builders for placement: {@code aRequest().gpus(2).bytes(gib(6)).priority(1)}. */
public final class PlacementFixtures {

  public static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  private static final AtomicLong SEQUENCE = new AtomicLong();

  private PlacementFixtures() {}

  public static long gib(double n) {
    return (long) (n * (1L << 30));
  }

  public static long mib(double n) {
    return (long) (n * (1L << 20));
  }

  public static RequestBuilder aRequest() {
    return new RequestBuilder();
  }

  public static GpuBuilder aGpu() {
    return new GpuBuilder();
  }

  public static PolicyBuilder aPolicy() {
    return new PolicyBuilder();
  }

  /** The GPUs of a node; a GPU without an explicit index gets its position. */
  public static List<GpuCapacity> node(GpuBuilder... gpus) {
    List<GpuCapacity> result = new ArrayList<>();
    for (int i = 0; i < gpus.length; i++) {
      result.add(gpus[i].buildAt(i));
    }
    return result;
  }

  /** A node of {@code count} empty GPUs of {@code totalBytes} each. */
  public static List<GpuCapacity> emptyNode(int count, long totalBytes) {
    GpuBuilder[] gpus = new GpuBuilder[count];
    Arrays.setAll(gpus, i -> aGpu().total(totalBytes));
    return node(gpus);
  }

  /**
   * {@code gpus} numbered by position, as generators want them: the GPU at position {@code i} gets
   * index {@code index(i)} and uuid {@code GPU-i}; sizes, use and last start are kept.
   */
  public static List<GpuCapacity> numbered(List<GpuCapacity> gpus, IntUnaryOperator index) {
    return IntStream.range(0, gpus.size())
        .mapToObj(
            i -> {
              GpuCapacity g = gpus.get(i);
              return new GpuCapacity(
                  index.applyAsInt(i),
                  "GPU-" + i,
                  g.totalBytes(),
                  g.reservedBytes(),
                  g.measuredUsedBytes(),
                  g.foreignUsedBytes(),
                  g.lastStartAt());
            })
        .toList();
  }

  public static List<PlacementRequest> queue(RequestBuilder... requests) {
    return Arrays.stream(requests).map(RequestBuilder::build).toList();
  }

  public static final class RequestBuilder {
    private final long sequenceByDefault = SEQUENCE.incrementAndGet();
    private String jobId;
    private int gpus = 1;
    private MemoryDemand memory = new MemoryDemand.Bytes(gib(1));
    private int priority;
    private Long sequence;
    private Instant queuedSince = NOW;
    private Cpus cpus = Cpus.ONE;
    private long hostMemory;

    public RequestBuilder id(String jobId) {
      this.jobId = jobId;
      return this;
    }

    public RequestBuilder gpus(int gpus) {
      this.gpus = gpus;
      return this;
    }

    public RequestBuilder cpuOnly() {
      return gpus(0);
    }

    public RequestBuilder bytes(long bytes) {
      return memory(new MemoryDemand.Bytes(bytes));
    }

    public RequestBuilder fraction(double fraction) {
      return memory(new MemoryDemand.Fraction(fraction));
    }

    public RequestBuilder wholeGpus() {
      return memory(new MemoryDemand.WholeGpu());
    }

    public RequestBuilder memory(MemoryDemand memory) {
      this.memory = memory;
      return this;
    }

    public RequestBuilder priority(int priority) {
      this.priority = priority;
      return this;
    }

    public RequestBuilder sequence(long sequence) {
      this.sequence = sequence;
      return this;
    }

    public RequestBuilder queuedSince(Instant queuedSince) {
      this.queuedSince = queuedSince;
      return this;
    }

    /** Whole cores it takes of the node. */
    public RequestBuilder cpus(int cpus) {
      this.cpus = Cpus.of(cpus);
      return this;
    }

    /** Thousandths of a core: {@code millicores(250)} asks for 0.25. */
    public RequestBuilder millicores(long millicores) {
      this.cpus = Cpus.ofMillis(millicores);
      return this;
    }

    /** Host memory it reserves; none by default. */
    public RequestBuilder hostMemory(long bytes) {
      this.hostMemory = bytes;
      return this;
    }

    public RequestBuilder waiting(Duration wait) {
      return queuedSince(NOW.minus(wait));
    }

    public PlacementRequest build() {
      long seq = sequence != null ? sequence : sequenceByDefault;
      return new PlacementRequest(
          jobId != null ? jobId : "job-" + seq,
          gpus,
          memory,
          priority,
          seq,
          queuedSince,
          cpus,
          hostMemory);
    }
  }

  public static final class GpuBuilder {
    private Integer index;
    private long total = gib(16);
    private long reserved;
    private long measured;
    private long foreign;
    private Instant lastStartAt;

    public GpuBuilder index(int index) {
      this.index = index;
      return this;
    }

    public GpuBuilder total(long total) {
      this.total = total;
      return this;
    }

    /** gpuq budgets placed here; measured use follows unless set explicitly afterwards. */
    public GpuBuilder reserved(long reserved) {
      this.reserved = reserved;
      this.measured = Math.max(measured, reserved + foreign);
      return this;
    }

    public GpuBuilder measured(long measured) {
      this.measured = measured;
      return this;
    }

    /** Memory of processes gpuq did not start; counted in measured use too. */
    public GpuBuilder foreign(long foreign) {
      this.foreign = foreign;
      this.measured = Math.max(measured, reserved + foreign);
      return this;
    }

    public GpuBuilder lastStartAt(Instant lastStartAt) {
      this.lastStartAt = lastStartAt;
      return this;
    }

    public GpuBuilder startedAgo(Duration ago) {
      return lastStartAt(NOW.minus(ago));
    }

    GpuCapacity buildAt(int position) {
      int i = index != null ? index : position;
      return new GpuCapacity(i, "GPU-" + i, total, reserved, measured, foreign, lastStartAt);
    }
  }

  public static final class PolicyBuilder {
    private Headroom headroom = Headroom.NONE;
    private Duration maxWait = Duration.ofHours(1);
    private Duration spacing = Duration.ZERO;
    private int lookahead = 1000;

    public PolicyBuilder headroom(Headroom headroom) {
      this.headroom = headroom;
      return this;
    }

    public PolicyBuilder maxWait(Duration maxWait) {
      this.maxWait = maxWait;
      return this;
    }

    public PolicyBuilder spacing(Duration spacing) {
      this.spacing = spacing;
      return this;
    }

    public PolicyBuilder lookahead(int lookahead) {
      this.lookahead = lookahead;
      return this;
    }

    public PlacementPolicy build() {
      return new PlacementPolicy(headroom, maxWait, spacing, lookahead);
    }

    public Placer placer() {
      return new Placer(build());
    }
  }
}
