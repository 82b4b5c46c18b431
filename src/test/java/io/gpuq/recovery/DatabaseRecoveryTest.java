package io.gpuq.recovery;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@IntegrationTier
@DisplayName("A damaged database file")
class DatabaseRecoveryTest {

  private static final String TOKEN = "recovery-token-0123456789";
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  @Test
  @DisplayName(
      "is refused at start in one block naming the newest backup, and the restore of"
          + " docs/backup.md brings back every job acknowledged before that backup")
  void isRefusedSayingHowToRestoreAndTheDocumentedRestoreWorks() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "damaged-");
    Path backups = dataDir.resolve("backups");
    List<String> acknowledged = new ArrayList<>();
    try (GpuqProcess gpuq = GpuqProcess.start(dataDir, TOKEN, "--gpuq.backup.interval=1s")) {
      HttpApi api = gpuq.api(TOKEN);
      for (int i = 0; i < 5; i++) {
        acknowledged.add(api.submit(aJob().name("backed-up-" + i).command("true").json()));
      }
      // A backup that began after the last acknowledgement holds every job: its name is the
      // second it began.
      String after = STAMP.format(Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  newestBackup(backups)
                      .filter(name -> name.compareTo("gpuq-" + after) >= 0)
                      .isPresent());
    }
    Path database = dataDir.resolve("db/gpuq.mv.db");
    damageHeaders(database);

    GpuqProcess.Exited refused =
        GpuqProcess.runToExit(List.of(), dataDir, TOKEN, Duration.ofMinutes(3));

    assertThat(refused.exitCode()).isNotZero();
    String newest = newestBackup(backups).orElseThrow();
    assertThat(refused.output())
        .contains("APPLICATION FAILED TO START")
        .contains("gpuq's database " + database + " is damaged and cannot be opened")
        .contains("    mv " + database + " " + database + ".damaged\n")
        .contains("    gunzip -c " + backups.resolve(newest) + " > " + database + "\n");
    assertThat(stackTraceLines(refused.output())).as(refused.output()).isEmpty();

    Process restore =
        new ProcessBuilder("bash", "-euo", "pipefail", "-c", documentedRestore(dataDir))
            .redirectErrorStream(true)
            .start();
    String restoreOutput = new String(restore.getInputStream().readAllBytes());
    assertThat(restore.waitFor()).as(restoreOutput).isZero();
    assertThat(dataDir.resolve("db/gpuq.mv.db.damaged")).exists();

    try (GpuqProcess restored = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = restored.api(TOKEN);
      for (String id : acknowledged) {
        assertThat(api.get("/api/v1/jobs/" + id).status()).as(id).isEqualTo(200);
      }
    }
  }

  /** Both of the file's store headers overwritten, as a bad disk or a torn write might. */
  private static void damageHeaders(Path database) throws IOException {
    byte[] garbage = new byte[8192];
    Arrays.fill(garbage, (byte) 'x');
    try (FileChannel file = FileChannel.open(database, StandardOpenOption.WRITE)) {
      file.write(ByteBuffer.wrap(garbage), 0);
    }
  }

  /** docs/backup.md's restore block, run as written, with DATA set to this data directory. */
  private static String documentedRestore(Path dataDir) throws IOException {
    String doc = Files.readString(Path.of("docs/backup.md"));
    Matcher block =
        Pattern.compile("## Restore.*?```bash\\n(DATA=\\S+\\n)(.*?)```", Pattern.DOTALL)
            .matcher(doc);
    assertThat(block.find()).as("a bash block under '## Restore' that sets DATA").isTrue();
    return "DATA='" + dataDir + "'\n" + block.group(2);
  }

  private static Optional<String> newestBackup(Path backups) throws IOException {
    if (!Files.isDirectory(backups)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.list(backups)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith("gpuq-") && name.endsWith(".mv.db.gz"))
          .max(String::compareTo);
    }
  }

  private static List<String> stackTraceLines(String output) {
    return output.lines().filter(line -> line.matches("\\s+at \\S+\\(.*|Caused by: .*")).toList();
  }
}
