/** A sweep's figures for the meters of {@code io.gpuq.meters}, read from the database. */
package io.gpuq.metrics;
