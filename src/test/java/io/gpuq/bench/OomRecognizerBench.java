package io.gpuq.bench;

import io.gpuq.guard.OomRecognizer;
import java.util.ArrayList;
import java.util.List;

/**
 * How long recognising OOM in a 64 KiB log tail takes when there is nothing to find, the case that
 * reads every line: a training log with step lines, allocator warnings and a traceback.
 *
 * <p>Usage: {@code bench/run OomRecognizerBench [iterations]}
 */
public final class OomRecognizerBench {

  public static void main(String[] args) {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    String tail = typicalTail(OomRecognizer.DEFAULT_TAIL_BYTES);
    OomRecognizer recognizer = new OomRecognizer();

    for (int i = 0; i < iterations; i++) { // warm-up
      if (recognizer.recognize(tail).isPresent()) {
        throw new IllegalStateException("the bench log must not look like OOM");
      }
    }
    long start = System.nanoTime();
    for (int i = 0; i < iterations; i++) {
      recognizer.recognize(tail);
    }
    double perTail = (System.nanoTime() - start) / (double) iterations;
    System.out.printf(
        "64 KiB tail, %d lines, nothing to find: %.1f us per tail, %.0f MB/s%n",
        tail.lines().count(), perTail / 1e3, tail.length() / (perTail / 1e9) / 1e6);
  }

  private static String typicalTail(int bytes) {
    List<String> lines = new ArrayList<>();
    int size = 0;
    for (int step = 0; size < bytes; step++) {
      String line =
          switch (step % 50) {
            case 0 ->
                "2024-05-01 12:00:02.345678: W external/local_tsl/tsl/framework/bfc_allocator.cc:291]"
                    + " Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB with freed_by_count=0."
                    + " The caller indicates that this is not a failure, but this may mean that there could be"
                    + " performance gains if more memory were available.";
            case 1 ->
                "  File \"/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py\", line 1787,"
                    + " in _call_impl";
            default ->
                "step " + step + " | loss 0.4312 | lr 3.0e-04 | 812.4 samples/s | gpu mem 5.1 GiB";
          };
      lines.add(line);
      size += line.length() + 1;
    }
    return String.join("\n", lines);
  }
}
