/**
 * Warm starts (issue 36): a sweep's trials fork from a zygote that imported the heavy modules once.
 */
package io.gpuq.warm;
