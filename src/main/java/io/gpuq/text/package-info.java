/**
 * Text users write and read: memory sizes parsed from requests and configuration and formatted for
 * messages (the one byte formatter), and the short, safe form of user text that messages quote.
 * Plain Java; a leaf.
 */
package io.gpuq.text;
