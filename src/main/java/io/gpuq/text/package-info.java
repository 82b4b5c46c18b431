/**
 * Text users write and read: memory sizes parsed from requests and configuration and formatted for
 * messages (the one byte formatter), the short, safe form of user text that messages quote, and
 * JSON string literals for the JSON the core writes by hand. Plain Java; a leaf.
 */
package io.gpuq.text;
