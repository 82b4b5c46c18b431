/**
 * gpuq, a GPU job scheduler: the application class. The packages below it are layered (see {@code
 * DEVELOPERS.md} and {@code ArchitectureTest}): foundation ({@code duty}, {@code proc}, {@code fs},
 * {@code placement}, {@code text}), domain ({@code job}, {@code gpu}, {@code isolation}, {@code
 * launch}, {@code guard}), configuration input ({@code config}), services ({@code schedule}, {@code
 * node}, {@code metrics}), edges ({@code api}, {@code security}) and, on top, {@code wiring}.
 */
package io.gpuq;
