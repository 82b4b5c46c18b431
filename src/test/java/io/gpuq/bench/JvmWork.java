package io.gpuq.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * What this JVM has done so far: garbage collections (count, milliseconds) and bytes allocated by
 * all its threads, so that a measured stretch can say how many pauses fell into it.
 */
record JvmWork(long collections, long collectionMillis, long allocatedBytes) {

  static JvmWork now() {
    long count = 0;
    long millis = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      count += Math.max(0, gc.getCollectionCount());
      millis += Math.max(0, gc.getCollectionTime());
    }
    return new JvmWork(count, millis, allocated());
  }

  private static long allocated() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long total = 0;
    for (long allocated : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
      total += Math.max(0, allocated);
    }
    return total;
  }

  /**
   * In words: collections and their time since {@code before}, and the bytes allocated per request
   * (threads that ended meanwhile are not counted).
   */
  String since(JvmWork before, int requests) {
    return String.format(
        "%d collections, %d ms in them; %,d bytes allocated a request (client and server)",
        collections - before.collections,
        collectionMillis - before.collectionMillis,
        (allocatedBytes - before.allocatedBytes) / Math.max(1, requests));
  }
}
