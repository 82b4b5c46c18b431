package io.gpuq.guard;

import java.util.regex.Pattern;

/**
 * A way a framework or CUDA library reports that the GPU had no memory left. Each signature is a
 * phrase those libraries print when the allocation fails for good, strict enough that prose
 * mentioning memory (or a log line like {@code no RESOURCE_EXHAUSTED errors seen}) does not match.
 *
 * <p>Host memory exhaustion (Python's {@code MemoryError}, numpy's "Unable to allocate", Java's
 * {@code java.lang.OutOfMemoryError}, the kernel's OOM killer) is deliberately not GPU
 * out-of-memory: retrying with a larger GPU budget would not help it.
 */
public enum OomSignature {
  /**
   * CuPy's memory pool: {@code cupy.cuda.memory.OutOfMemoryError: Out of memory allocating ...}.
   */
  CUPY_OUT_OF_MEMORY(
      "CuPy", "OutOfMemoryError", "\\bcupy\\.cuda\\.memory\\.OutOfMemoryError(?:: \\S|\\()"),

  /** XLA's allocator, under JAX: {@code RESOURCE_EXHAUSTED: Out of memory while trying to ...}. */
  XLA_OUT_OF_MEMORY(
      "JAX/XLA",
      "out of memory while allocating",
      "\\bOut of memory (?:while trying to allocate|allocating) \\d"),

  /** Any other {@code RESOURCE_EXHAUSTED} raised to Python by JAX, or XLA's allocation status. */
  XLA_RESOURCE_EXHAUSTED(
      "JAX/XLA",
      "RESOURCE_EXHAUSTED",
      "\\b(?:XlaRuntimeError|JaxRuntimeError): RESOURCE_EXHAUSTED\\b"
          + "|\\bRESOURCE_EXHAUSTED: (?:Out of memory|Failed to allocate)\\b"),

  /** torch's exception type, printed as {@code torch.OutOfMemoryError: ...}. */
  TORCH_OUT_OF_MEMORY_ERROR(
      "PyTorch", "OutOfMemoryError", "\\btorch\\.(?:cuda\\.)?OutOfMemoryError(?:: \\S|\\()"),

  /** torch's caching allocator: {@code CUDA out of memory. Tried to allocate ...}. */
  TORCH_CUDA_OUT_OF_MEMORY("PyTorch", "CUDA out of memory", "\\b(?:CUDA|HIP) out of memory\\b"),

  /** A CUDA runtime call that failed for lack of memory, as torch reports it. */
  CUDA_ERROR_MESSAGE(
      "CUDA", "CUDA error: out of memory", "\\b(?:CUDA|HIP) error: out of memory\\b"),

  /** TensorFlow's allocator, on a GPU (the same message for a CPU tensor is host memory). */
  TF_OOM_WHEN_ALLOCATING(
      "TensorFlow", "OOM when allocating tensor", "\\bOOM when allocating tensor\\b"),

  /** TensorFlow 2 eager ops: {@code ResourceExhaustedError: ... failed to allocate memory}. */
  TF_FAILED_TO_ALLOCATE(
      "TensorFlow",
      "ResourceExhaustedError: failed to allocate memory",
      "\\bResourceExhaustedError\\b.*\\bfailed to allocate memory\\b"),

  /** cuBLAS (and cuSOLVER, cuSPARSE, cuFFT) could not allocate its workspace or handle. */
  CUDA_LIBRARY_ALLOC_FAILED(
      "CUDA",
      "CUBLAS_STATUS_ALLOC_FAILED",
      "\\b(?:CUBLAS|CUSOLVER|CUSPARSE)_STATUS_ALLOC_FAILED\\b|\\bCUFFT_ALLOC_FAILED\\b"),

  /** cuDNN: {@code CUDNN_STATUS_ALLOC_FAILED} and cuDNN 9's {@code ..._ALLOCATION_FAILED} codes. */
  CUDNN_ALLOC_FAILED(
      "cuDNN", "CUDNN_STATUS_ALLOC_FAILED", "\\bCUDNN_STATUS_\\w*?ALLOC(?:ATION)?_FAILED\\b"),

  /** The CUDA driver API's error code. */
  CUDA_ERROR_OUT_OF_MEMORY("CUDA", "CUDA_ERROR_OUT_OF_MEMORY", "\\bCUDA_ERROR_OUT_OF_MEMORY\\b"),

  /** The CUDA runtime API's error code (also ROCm's). */
  CUDA_ERROR_MEMORY_ALLOCATION(
      "CUDA",
      "cudaErrorMemoryAllocation",
      "\\bcudaErrorMemoryAllocation\\b|\\bhipErrorOutOfMemory\\b"),

  /** NCCL, when CUDA could not give it buffers: {@code Cuda failure 'out of memory'}. */
  NCCL_CUDA_OUT_OF_MEMORY(
      "NCCL", "Cuda failure 'out of memory'", "\\bCuda failure (?:\\d+ )?'out of memory'");

  private static final Pattern ON_CPU = Pattern.compile("device:CPU:|\\bby allocator cpu\\b");

  private final String source;
  private final String summary;
  private final Pattern pattern;

  OomSignature(String source, String summary, String regex) {
    this.source = source;
    this.summary = summary;
    this.pattern = Pattern.compile(regex);
  }

  /** Who prints it: {@code PyTorch}, {@code JAX/XLA}, {@code TensorFlow}, {@code CUDA}, ... */
  public String source() {
    return source;
  }

  /** A few words for a failure message, e.g. {@code CUDA out of memory}. */
  public String summary() {
    return summary;
  }

  boolean matches(String line) {
    if (!pattern.matcher(line).find()) {
      return false;
    }
    boolean tensorflow = this == TF_OOM_WHEN_ALLOCATING || this == TF_FAILED_TO_ALLOCATE;
    return !(tensorflow && ON_CPU.matcher(line).find());
  }
}
