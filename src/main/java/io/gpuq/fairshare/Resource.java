package io.gpuq.fairshare;

/** The resources an owner's usage is measured in; the largest share of them is the dominant one. */
public enum Resource {
  GPU_MEMORY("the GPU memory"),
  WHOLE_GPUS("the GPUs"),
  CPU_SLOTS("the CPU slots"),
  CORES("the cores"),
  HOST_MEMORY("the host memory");

  private final String words;

  Resource(String words) {
    this.words = words;
  }

  /** For a person: "the GPU memory". */
  public String words() {
    return words;
  }
}
