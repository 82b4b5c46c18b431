package io.gpuq.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

@DisplayName("A start that fails on a damaged database file")
class DamagedDatabaseAnalyzerTest {

  @TempDir Path data;

  @Test
  void namesTheFileAndTheCommandsThatRestoreTheNewestBackup() throws IOException {
    Files.createDirectories(data.resolve("backups"));
    Files.writeString(data.resolve("backups/gpuq-20261202T200000Z.mv.db.gz"), "older");
    Files.writeString(data.resolve("backups/gpuq-20261202T201500Z.mv.db.gz"), "newest");

    FailureAnalysis analysis = analyzer("jdbc:h2:file:x").analyze(startFailure(damagedFile()));

    Path file = data.resolve("db/gpuq.mv.db");
    assertThat(analysis.getDescription())
        .isEqualTo(
            "gpuq's database "
                + file
                + " is damaged and cannot be opened: File corrupted while"
                + " reading record");
    assertThat(analysis.getAction())
        .contains("    mv " + file + " " + file + ".damaged\n")
        .contains(
            "    gunzip -c "
                + data.resolve("backups/gpuq-20261202T201500Z.mv.db.gz")
                + " > "
                + file
                + "\n");
  }

  @Test
  void withoutABackupSaysSoAndHowToStartAfresh() {
    FailureAnalysis analysis = analyzer("jdbc:h2:file:x").analyze(startFailure(damagedFile()));

    assertThat(analysis.getAction())
        .startsWith("There is no backup in " + data.resolve("backups"))
        .doesNotContain("gunzip");
  }

  @Test
  void recognisesMvStoresOwnWordsForDamage() {
    assertThat(
            DamagedDatabaseAnalyzer.damage(
                startFailure(
                    new org.h2.mvstore.MVStoreException(
                        6, "File corrupted in chunk 398, expected map id 10, got 15"))))
        .isPresent();
  }

  @Test
  void leavesEveryOtherFailureToSpringBootsOwnAnalyzers() {
    assertThat(
            analyzer("jdbc:h2:file:x")
                .analyze(startFailure(new SQLException("locked", "HY000", 90020))))
        .isNull();
    assertThat(analyzer("jdbc:postgresql://db/gpuq").analyze(startFailure(damagedFile())))
        .as("PostgreSQL's files are not gpuq's to restore")
        .isNull();
  }

  private DamagedDatabaseAnalyzer analyzer(String url) {
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "test", Map.of("spring.datasource.url", url, "gpuq.data-dir", data.toString())));
    return new DamagedDatabaseAnalyzer(environment);
  }

  private static SQLException damagedFile() {
    return new SQLException("File corrupted while reading record", "XX000", 90030);
  }

  /** As a failed start wraps it: a bean that could not be created, because Flyway could not... */
  private static RuntimeException startFailure(Throwable cause) {
    return new IllegalStateException(
        "Error creating bean with name 'flyway'",
        new RuntimeException("Unable to obtain connection", cause));
  }
}
