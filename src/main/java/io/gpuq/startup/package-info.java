/**
 * How gpuq's own JVM starts from its jar: classes found through an index of the jar's libraries
 * instead of a search through all of them. Plain Java; a leaf, used only by the application class.
 */
package io.gpuq.startup;
