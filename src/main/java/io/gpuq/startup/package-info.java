/**
 * How gpuq's own JVM starts from its jar: classes found through an index of the jar's libraries
 * instead of a search through all of them, and how it ends on an {@code OutOfMemoryError} ({@code
 * OutOfMemoryExit}). Plain Java; a leaf.
 */
package io.gpuq.startup;
