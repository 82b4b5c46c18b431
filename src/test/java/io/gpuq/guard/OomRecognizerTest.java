package io.gpuq.guard;

import static io.gpuq.guard.OomSignature.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class OomRecognizerTest {

  private final OomRecognizer recognizer = new OomRecognizer();

  /** The JAX/TF allocator warning about a failed allocation it recovered from. */
  private static final String NOT_A_FAILURE_WARNING =
      "2024-05-01 12:00:02.345678: W external/local_tsl/tsl/framework/bfc_allocator.cc:291]"
          + " Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB with"
          + " freed_by_count=0. The caller indicates that this is not a failure, but this may mean"
          + " that there could be performance gains if more memory were available.";

  private static final String TORCH_OOM =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total"
          + " capacity of 79.15 GiB of which 3.30 GiB is free. Including non-PyTorch memory, this"
          + " process has 75.84 GiB memory in use. Of the allocated memory 74.12 GiB is allocated by"
          + " PyTorch, and 1.21 GiB is reserved by PyTorch but unallocated. If reserved but"
          + " unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
          + " to avoid fragmentation.  See documentation for Memory Management "
          + " (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";

  static Stream<Arguments> gpuOutOfMemoryLines() {
    return Stream.of(
        // JAX / XLA
        oom(
            XLA_OUT_OF_MEMORY,
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying"
                + " to allocate 17179869184 bytes."),
        oom(
            XLA_OUT_OF_MEMORY,
            "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate"
                + " 19.59GiB. [executable_name='jit_concatenate'] [tf-allocator-allocation-error='']"),
        oom(
            XLA_OUT_OF_MEMORY,
            "E0501 12:00:03.123456   41234 pjrt_stream_executor_client.cc:3045] Execution of"
                + " replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate"
                + " 8589934592 bytes."),
        oom(
            XLA_OUT_OF_MEMORY,
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating"
                + " 4294967296 bytes."),
        oom(
            XLA_RESOURCE_EXHAUSTED,
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request"
                + " for 8.00GiB (8589934592B) on device ordinal 0"),
        oom(
            XLA_RESOURCE_EXHAUSTED,
            "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran"
                + " out of memory in memory space hbm. Used 17.82G of 15.48G hbm."),
        // PyTorch
        oom(TORCH_OUT_OF_MEMORY_ERROR, TORCH_OOM),
        oom(
            TORCH_OUT_OF_MEMORY_ERROR,
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0;"
                + " 15.77 GiB total capacity; 14.21 GiB already allocated; 291.12 MiB free; 14.53"
                + " GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try"
                + " setting max_split_size_mb to avoid fragmentation.  See documentation for Memory"
                + " Management and PYTORCH_CUDA_ALLOC_CONF"),
        oom(
            TORCH_OUT_OF_MEMORY_ERROR,
            "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 3"
                + " has a total capacity of 79.25 GiB of which 8.94 MiB is free. Including"
                + " non-PyTorch memory, this process has 79.23 GiB memory in use. 6.00 GiB"
                + " allowed; Of the allocated memory 5.52 GiB is allocated by PyTorch"),
        oom(
            TORCH_OUT_OF_MEMORY_ERROR,
            "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a"
                + " total capacity of 191.98 GiB of which 1.02 GiB is free."),
        oom(
            TORCH_CUDA_OUT_OF_MEMORY,
            "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total"
                + " capacity; 6.25 GiB already allocated; 17.06 MiB free; 6.42 GiB reserved in"
                + " total by PyTorch)"),
        oom(CUDA_ERROR_MESSAGE, "RuntimeError: CUDA error: out of memory"),
        oom(CUDA_ERROR_MESSAGE, "torch.AcceleratorError: CUDA error: out of memory"),
        oom(
            CUDA_LIBRARY_ALLOC_FAILED,
            "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling"
                + " `cublasCreate(handle)`"),
        oom(CUDNN_ALLOC_FAILED, "RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED"),
        oom(
            CUDNN_ALLOC_FAILED,
            "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED"),
        oom(
            CUDNN_ALLOC_FAILED,
            "E0501 12:00:01.000000   1234 cuda_dnn.cc:535] Could not create cudnn handle:"
                + " CUDNN_STATUS_ALLOCATION_FAILED"),
        // TensorFlow
        oom(
            TF_OOM_WHEN_ALLOCATING,
            "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating"
                + " tensor with shape[1024,1024,1024] and type float on"
                + " /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"),
        oom(
            TF_OOM_WHEN_ALLOCATING,
            "ResourceExhaustedError: {{function_node"
                + " __wrapped__MatMul_device_/job:localhost/replica:0/task:0/device:GPU:0}} OOM"
                + " when allocating tensor with shape[150,2457600] and type double on"
                + " /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"
                + " [Op:MatMul] name: "),
        oom(
            TF_OOM_WHEN_ALLOCATING,
            "  (0) Resource exhausted: OOM when allocating tensor with shape[32,64,112,112] and"
                + " type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator"
                + " GPU_0_bfc"),
        oom(
            TF_FAILED_TO_ALLOCATE,
            "tensorflow.python.framework.errors_impl.ResourceExhaustedError: {{function_node"
                + " __wrapped__Cast_device_/job:localhost/replica:0/task:0/device:GPU:0}} failed to"
                + " allocate memory [Op:Cast]"),
        oom(
            CUDA_LIBRARY_ALLOC_FAILED,
            "2020-05-18 08:20:16.153412: E tensorflow/stream_executor/cuda/cuda_blas.cc:238]"
                + " failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED"),
        // CUDA itself, CuPy, NCCL
        oom(
            CUDA_ERROR_OUT_OF_MEMORY,
            "2024-03-01 10:00:00.000000: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:1106]"
                + " failed to allocate 12.00GiB (12884901888 bytes) from device:"
                + " CUDA_ERROR_OUT_OF_MEMORY: out of memory"),
        oom(
            CUDA_ERROR_MEMORY_ALLOCATION,
            "thrust::system::detail::bad_alloc: std::bad_alloc: cudaErrorMemoryAllocation: out of"
                + " memory"),
        oom(
            CUPY_OUT_OF_MEMORY,
            "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,073,741,824 bytes"
                + " (allocated so far: 15,032,385,536 bytes)."),
        oom(
            NCCL_CUDA_OUT_OF_MEMORY,
            "gpu-node-1:4242:4301 [0] include/alloc.h:103 NCCL WARN Cuda failure 2 'out of"
                + " memory'"));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("gpuOutOfMemoryLines")
  void recognisesGpuOutOfMemory(OomSignature signature, String line) {
    assertThat(recognizer.recognize(List.of(line)))
        .hasValueSatisfying(
            match -> {
              assertThat(match.signature()).isEqualTo(signature);
              assertThat(line.strip()).startsWith(match.line().replace("…", ""));
            });
  }

  static Stream<String> otherLines() {
    return Stream.of(
        NOT_A_FAILURE_WARNING,
        "W0501 12:00:02.345678   41234 bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of"
            + " memory trying to allocate 2.00GiB with freed_by_count=0. The caller indicates that"
            + " this is not a failure, but this may mean that there could be performance gains if"
            + " more memory were available.",
        "Allocator (GPU_0_bfc) ran out of memory trying to allocate 3.46GiB with freed_by_count=0."
            + " The caller indicates that this is not a failure, but may mean that there could be"
            + " performance gains if more memory were available.",
        // The CUDA driver's first try, before the allocator retries with less.
        "2025-07-31 20:22:32.901607: I tensorflow/stream_executor/cuda/cuda_driver.cc:763] failed"
            + " to allocate 343.34M (360015104 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of"
            + " memory",
        "W0000 00:00:1714000000.123456   1234 gpu_driver.cc:1100] failed to allocate 1.00GiB from"
            + " device: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
        // Pinned host memory is host memory.
        "2024-03-01 10:00:00.000000: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:1400]"
            + " failed to alloc 2147483648 bytes on host: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
        // A CPU tensor in TensorFlow is host memory too.
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor"
            + " with shape[100000,100000] and type float on"
            + " /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu",
        "log: no RESOURCE_EXHAUSTED errors seen",
        "grpc._channel._InactiveRpcError: status = StatusCode.RESOURCE_EXHAUSTED details ="
            + " \"Received message larger than max (4194308 vs. 4194304)\"",
        "MemoryError",
        "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 74.5 GiB for an array with"
            + " shape (100000, 100000) and data type float64",
        "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space",
        "terminate called after throwing an instance of 'std::bad_alloc'",
        "Killed",
        "    except torch.cuda.OutOfMemoryError:",
        "retrying with batch size 16 after a CUDA OOM",
        "epoch 3: gpu memory 5.1 GiB / 6.0 GiB (out of memory budget: 85%), loss 0.231",
        "Traceback (most recent call last):",
        "ValueError: not enough values to unpack (expected 3, got 2)",
        "[W501 12:00:00.123456789 CUDACachingAllocator.cpp:1005] Warning: expandable_segments not"
            + " supported on this platform (function operator())");
  }

  @ParameterizedTest
  @MethodSource("otherLines")
  void ignoresLinesThatAreNotAFatalGpuOutOfMemory(String line) {
    assertThat(recognizer.recognize(List.of(line))).isEmpty();
  }

  @Nested
  @DisplayName("a log")
  class ALog {

    @Test
    @DisplayName("with only the allocator's not-a-failure warnings is not out of memory")
    void onlyWarnings() {
      String log =
          String.join(
              "\n",
              "step 100 loss 0.52",
              NOT_A_FAILURE_WARNING,
              NOT_A_FAILURE_WARNING,
              "step 200 loss 0.48",
              "Traceback (most recent call last):",
              "  File \"train.py\", line 12, in <module>",
              "KeyError: 'lr'");

      assertThat(recognizer.recognize(log)).isEmpty();
    }

    @Test
    @DisplayName("with the warning and a real out-of-memory later is out of memory")
    void warningThenRealOom() {
      String log =
          String.join(
              "\n",
              NOT_A_FAILURE_WARNING,
              "Traceback (most recent call last):",
              "  File \"train.py\", line 40, in <module>",
              "    state = update(state, batch)",
              "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying"
                  + " to allocate 17179869184 bytes.",
              "");

      assertThat(recognizer.recognize(log))
          .hasValueSatisfying(
              match -> {
                assertThat(match.signature()).isEqualTo(XLA_OUT_OF_MEMORY);
                assertThat(match.line()).startsWith("jaxlib.xla_extension.XlaRuntimeError");
              });
    }

    @Test
    @DisplayName("reports the last matching line, the one nearest to the death")
    void lastMatchWins() {
      String log =
          String.join(
              "\r\n",
              "RuntimeError: CUDA error: out of memory",
              "CUDA kernel errors might be asynchronously reported at some other API call,",
              TORCH_OOM);

      assertThat(recognizer.recognize(log).map(OomMatch::signature))
          .contains(TORCH_OUT_OF_MEMORY_ERROR);
    }

    @Test
    @DisplayName("with progress bars drawn by carriage returns is read line by line")
    void carriageReturns() {
      String log = " 10%|#         | 10/100 [00:01<00:09]\r 11%|#         | 11/100\r" + TORCH_OOM;

      assertThat(recognizer.recognize(log)).isPresent();
    }

    @Test
    @DisplayName("with terminal colours is recognised, and the colours are not in the message")
    void colours() {
      String log =
          "\u001B[31mtorch.OutOfMemoryError\u001B[0m: CUDA out of memory. Tried to allocate 2.00"
              + " GiB.";

      assertThat(recognizer.recognize(log))
          .hasValueSatisfying(
              match ->
                  assertThat(match.line())
                      .isEqualTo(
                          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."));
    }

    @Test
    void thatIsEmptyIsNotOutOfMemory() {
      assertThat(recognizer.recognize("")).isEmpty();
    }
  }

  @Nested
  @DisplayName("a log file")
  class ALogFile {

    @TempDir Path dir;

    @Test
    void isReadFromItsEnd() throws IOException {
      Path log = dir.resolve("output.log");
      Files.writeString(log, "step 1 loss 0.9\n".repeat(20_000) + TORCH_OOM + "\n");

      assertThat(recognizer.recognizeFileTail(log, OomRecognizer.DEFAULT_TAIL_BYTES))
          .map(OomMatch::signature)
          .contains(TORCH_OUT_OF_MEMORY_ERROR);
    }

    @Test
    @DisplayName("is only read as far back as asked")
    void oomBeforeTheTailIsNotSeen() throws IOException {
      Path log = dir.resolve("output.log");
      Files.writeString(log, TORCH_OOM + "\n" + "step 1 loss 0.9\n".repeat(20_000));

      assertThat(recognizer.recognizeFileTail(log, OomRecognizer.DEFAULT_TAIL_BYTES)).isEmpty();
    }

    @Test
    @DisplayName("ignores the line cut by the start of the window")
    void partialFirstLineIsIgnored() throws IOException {
      Path log = dir.resolve("output.log");
      String warning =
          "W0501 12:00:02.345678   41234 gpu_driver.cc:1100] failed to allocate 1.00GiB from"
              + " device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n";
      Files.writeString(log, warning + "done\n");

      // The window starts after "W0501 ", which would make the rest look like an error.
      int window = warning.length() - 6 + "done\n".length();

      assertThat(recognizer.recognizeFileTail(log, window)).isEmpty();
      assertThat(recognizer.recognize(warning.substring(6))).isPresent();
    }

    @Test
    @DisplayName("cut in the middle of a UTF-8 character is still read")
    void cutInsideACharacter() throws IOException {
      Path log = dir.resolve("output.log");
      Files.write(log, ("ééééé\n" + TORCH_OOM + "\n").getBytes(StandardCharsets.UTF_8));
      int window = (int) Files.size(log) - 5; // starts inside the third "é"

      assertThat(recognizer.recognizeFileTail(log, window)).isPresent();
    }

    @Test
    void thatIsMissingIsNotOutOfMemory() throws IOException {
      assertThat(recognizer.recognizeFileTail(dir.resolve("nope.log"), 1024)).isEmpty();
    }
  }

  @Test
  @DisplayName("describes the match for the job's failure message")
  void describesTheMatch() {
    OomMatch match =
        recognizer.recognize("RuntimeError: CUDA error: out of memory\n").orElseThrow();

    assertThat(match.describe())
        .isEqualTo(
            "GPU out of memory (CUDA: CUDA error: out of memory): RuntimeError: CUDA error: out of"
                + " memory");
  }

  @Test
  void cutsAVeryLongLineForTheMessage() {
    OomMatch match =
        new OomMatch(TORCH_CUDA_OUT_OF_MEMORY, "CUDA out of memory " + "x".repeat(5000));

    assertThat(match.line()).hasSize(OomMatch.MAX_LINE_CHARS).endsWith("…");
  }

  private static Arguments oom(OomSignature signature, String line) {
    return Arguments.of(signature, line);
  }
}
