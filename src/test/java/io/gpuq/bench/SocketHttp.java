package io.gpuq.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A minimal blocking HTTP/1.1 client: one keep-alive connection per calling thread, plain socket
 * reads and writes, nothing else. The bench runs on the same two cores as gpuq, so every
 * microsecond its client spends is taken from the server it measures; the JDK's {@code HttpClient}
 * spends about 1 ms of CPU per request on its selector thread and futures (docs/benchmarks.md).
 * Real submitters run elsewhere: on their own machines, in notebooks.
 *
 * <p>It understands what Tomcat answers: a status line, headers, then a body sized by {@code
 * Content-Length} or sent {@code chunked}; {@code Connection: close} closes the connection after
 * the answer (Tomcat does so after 100 requests on one connection).
 */
final class SocketHttp {

  private final String host;
  private final int port;
  private final String authorization;
  private final ThreadLocal<Connection> connections = new ThreadLocal<>();

  SocketHttp(String host, int port, String bearerToken) {
    this.host = host;
    this.port = port;
    this.authorization = "Bearer " + bearerToken;
  }

  record Response(int status, String body) {}

  /** POSTs a JSON body; a connection that fails is closed and the failure thrown. */
  Response postJson(String path, String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: "
            + host
            + ":"
            + port
            + "\r\nAuthorization: "
            + authorization
            + "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: "
            + body.length
            + "\r\n\r\n";
    Connection connection = connection();
    try {
      connection.out.write(head.getBytes(StandardCharsets.ISO_8859_1));
      connection.out.write(body);
      connection.out.flush();
      Response response = connection.readResponse();
      if (connection.closeAfterThis) {
        close(connection);
      }
      return response;
    } catch (IOException e) {
      close(connection);
      throw new UncheckedIOException("POST " + path, e);
    } catch (RuntimeException e) {
      close(connection);
      throw e;
    }
  }

  private Connection connection() {
    Connection connection = connections.get();
    if (connection == null) {
      try {
        Socket socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(host, port), 5_000);
        socket.setSoTimeout(60_000);
        connection = new Connection(socket);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot connect to " + host + ":" + port, e);
      }
      connections.set(connection);
    }
    return connection;
  }

  private void close(Connection connection) {
    connections.remove();
    try {
      connection.socket.close();
    } catch (IOException ignored) {
      // Closing a connection we give up on.
    }
  }

  private static final class Connection {
    final Socket socket;
    final InputStream in;
    final OutputStream out;
    boolean closeAfterThis;

    Connection(Socket socket) throws IOException {
      this.socket = socket;
      this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
      this.out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
    }

    Response readResponse() throws IOException {
      String statusLine = readLine();
      // "HTTP/1.1 201 " (Tomcat sends no reason phrase)
      String[] parts = statusLine.split(" ", 3);
      if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
        throw new IOException("not an HTTP/1.x status line: " + statusLine);
      }
      int status = Integer.parseInt(parts[1]);
      long length = -1;
      boolean chunked = false;
      closeAfterThis = false;
      for (String line = readLine(); !line.isEmpty(); line = readLine()) {
        int colon = line.indexOf(':');
        if (colon < 0) {
          continue;
        }
        String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = line.substring(colon + 1).trim();
        switch (name) {
          case "content-length" -> length = Long.parseLong(value);
          case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
          case "connection" -> closeAfterThis = value.equalsIgnoreCase("close");
          default -> {}
        }
      }
      byte[] body;
      if (chunked) {
        body = readChunked();
      } else if (length >= 0) {
        body = in.readNBytes((int) length);
        if (body.length != length) {
          throw new IOException("connection closed inside a body");
        }
      } else {
        body = in.readAllBytes();
        closeAfterThis = true;
      }
      return new Response(status, new String(body, StandardCharsets.UTF_8));
    }

    private byte[] readChunked() throws IOException {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      while (true) {
        String sizeLine = readLine();
        int semicolon = sizeLine.indexOf(';');
        int size =
            Integer.parseInt(
                (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
        if (size == 0) {
          // Trailers, if any, end with an empty line.
          while (!readLine().isEmpty()) {}
          return body.toByteArray();
        }
        byte[] chunk = in.readNBytes(size);
        if (chunk.length != size) {
          throw new IOException("connection closed inside a chunk");
        }
        body.write(chunk);
        readLine();
      }
    }

    /** One header line, without its CRLF. */
    private String readLine() throws IOException {
      StringBuilder line = new StringBuilder(64);
      int c;
      while ((c = in.read()) != '\n') {
        if (c < 0) {
          throw new IOException("connection closed by the server");
        }
        if (c != '\r') {
          line.append((char) c);
        }
      }
      return line.toString();
    }
  }
}
