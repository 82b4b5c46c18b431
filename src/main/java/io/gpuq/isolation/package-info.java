/**
 * Which OS account each owner's jobs run as, and whether gpuq can switch accounts at all: the
 * accounts, gpuq's own privileges, and the start-up rules that refuse an unsafe configuration.
 * Plain Java; its Spring wiring is {@code io.gpuq.wiring.IsolationConfiguration}.
 */
package io.gpuq.isolation;
