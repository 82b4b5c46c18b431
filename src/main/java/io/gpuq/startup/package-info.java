/**
 * How gpuq's own JVM starts: from its jar, classes found through an index of the jar's libraries
 * instead of a search through all of them; how it ends on an {@code OutOfMemoryError} ({@code
 * OutOfMemoryExit}); and the refusal to start ({@link io.gpuq.startup.StartRefusedException}) that
 * any package may raise. Plain Java.
 */
package io.gpuq.startup;
