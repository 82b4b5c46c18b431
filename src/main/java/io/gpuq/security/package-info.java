/**
 * Bearer-token authentication in front of the API: the configured (or generated) tokens and the
 * filter that turns a request's token into its {@code Caller}.
 */
package io.gpuq.security;
