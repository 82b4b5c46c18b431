package io.gpuq.security;

import io.gpuq.config.GpuqProperties;
import io.gpuq.fairshare.Limits;
import io.gpuq.fairshare.OwnerTerms;
import io.gpuq.fs.SafeFiles;
import io.gpuq.job.Caller;
import io.gpuq.job.Caller.Role;
import io.gpuq.startup.StartRefusedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer tokens gpuq accepts. Tokens come from configuration, each with a name (the owner of
 * the jobs it submits) and a role. With none configured, an admin token is generated once into
 * {@code <data-dir>/admin.token}, readable by its owner only, and reused on later starts.
 *
 * <p>Only SHA-256 digests are kept in memory, and lookups compare digests in constant time.
 */
public final class TokenRegistry {

  private static final Logger log = LoggerFactory.getLogger(TokenRegistry.class);

  /** The owner of the generated admin token. */
  public static final String GENERATED_ADMIN = "admin";

  private final Map<String, Caller> byDigest = new HashMap<>();
  private final Map<String, OwnerTerms> ownerTerms;

  public TokenRegistry(List<GpuqProperties.Auth.Token> tokens, Path dataDir, int minLength) {
    if (tokens.isEmpty()) {
      Path file = dataDir.resolve("admin.token");
      String generated = generatedAdminToken(file);
      if (generated.length() < minLength) {
        throw new StartRefusedException(
            "the admin token in " + file + " is shorter than " + minLength + " characters",
            "delete the file, and gpuq generates a new one at start");
      }
      register(generated, new Caller(GENERATED_ADMIN, Role.ADMIN));
      log.warn(
          "No API tokens configured (gpuq.auth.tokens): using the generated admin token in {}."
              + " Send it as 'Authorization: Bearer $(cat {})'.",
          file,
          file);
    }
    for (GpuqProperties.Auth.Token token : tokens) {
      if (token.name() == null || token.name().isBlank()) {
        throw new StartRefusedException(
            "a gpuq.auth.tokens entry has no name", "give every entry a name, its owner");
      }
      if (token.token() == null || token.token().length() < minLength) {
        throw new StartRefusedException(
            "the token of '"
                + token.name()
                + "' is shorter than "
                + minLength
                + " characters (gpuq.auth.min-token-length)",
            "generate one with 'openssl rand -base64 32' and set it as"
                + " gpuq.auth.tokens[N].token");
      }
      register(token.token(), new Caller(token.name(), token.role()));
    }
    ownerTerms = OwnerTerms.agreed(termsOf(tokens));
  }

  private static List<OwnerTerms.OfToken> termsOf(List<GpuqProperties.Auth.Token> tokens) {
    List<OwnerTerms.OfToken> terms = new ArrayList<>();
    for (int i = 0; i < tokens.size(); i++) {
      GpuqProperties.Auth.Token token = tokens.get(i);
      if (!(token.share() > 0) || Double.isInfinite(token.share())) {
        throw new StartRefusedException(
            "gpuq.auth.tokens["
                + i
                + "].share of '"
                + token.name()
                + "' is "
                + token.share()
                + "; a share must be a positive number",
            "set it to a positive weight (1 unless this owner should get more or less)");
      }
      terms.add(
          new OwnerTerms.OfToken(
              i, token.name(), new OwnerTerms(token.share(), limitsOf(i, token))));
    }
    return terms;
  }

  /** A token's limits; a negative count or an unreadable size refuses the start, naming it. */
  private static Limits limitsOf(int i, GpuqProperties.Auth.Token token) {
    String at = "gpuq.auth.tokens[" + i + "].";
    notNegative(at + "max-running-jobs", token.name(), token.maxRunningJobs());
    notNegative(at + "max-queued-jobs", token.name(), token.maxQueuedJobs());
    if (token.maxGpus() != null
        && (!(token.maxGpus() >= 0) || Double.isInfinite(token.maxGpus()))) {
      throw new StartRefusedException(
          at + "max-gpus of '" + token.name() + "' is " + token.maxGpus(),
          "set a number of GPUs, 0 or more (fractions add up: 2.5), or leave it unset for no"
              + " limit");
    }
    try {
      return Limits.of(
          token.maxRunningJobs(), token.maxGpus(), token.maxGpuMemory(), token.maxQueuedJobs());
    } catch (IllegalArgumentException e) {
      throw new StartRefusedException(
          at + "max-gpu-memory of '" + token.name() + "' is not a size (" + e.getMessage() + ")",
          "set a size such as 40GiB, or leave it unset for no limit",
          e);
    }
  }

  private static void notNegative(String key, String owner, Long value) {
    if (value != null && value < 0) {
      throw new StartRefusedException(
          key + " of '" + owner + "' is " + value,
          "set 0 or more, or leave it unset for its default");
    }
  }

  /**
   * The terms of each configured owner ({@link OwnerTerms#agreed}); an owner not in it (the
   * generated admin) has {@link OwnerTerms#DEFAULT}.
   */
  public Map<String, OwnerTerms> ownerTerms() {
    return ownerTerms;
  }

  /** The caller a presented token belongs to. */
  public Optional<Caller> authenticate(String presented) {
    if (presented == null || presented.isEmpty()) {
      return Optional.empty();
    }
    byte[] digest = sha256(presented);
    for (Map.Entry<String, Caller> entry : byDigest.entrySet()) {
      if (MessageDigest.isEqual(Base64.getDecoder().decode(entry.getKey()), digest)) {
        return Optional.of(entry.getValue());
      }
    }
    return Optional.empty();
  }

  private void register(String token, Caller caller) {
    String digest = Base64.getEncoder().encodeToString(sha256(token));
    if (byDigest.putIfAbsent(digest, caller) != null) {
      throw new StartRefusedException(
          "two gpuq.auth.tokens entries share one token", "give each entry its own token");
    }
  }

  private static String generatedAdminToken(Path file) {
    try {
      try {
        String existing = SafeFiles.read(file, 4096).trim();
        if (!existing.isEmpty()) {
          return existing;
        }
      } catch (NoSuchFileException e) {
        // first start: generate one below
      } catch (IOException e) {
        // Unreadable is not missing: a new token would lock out whoever holds the old one.
        throw new StartRefusedException(
            "cannot read the admin token " + file + " (" + e.getMessage() + ")",
            "fix it, or remove it and gpuq generates a new one at start",
            e);
      }
      Files.createDirectories(file.getParent());
      byte[] random = new byte[32];
      new SecureRandom().nextBytes(random);
      String token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
      Path tmp =
          Files.createTempFile(
              file.getParent(),
              "admin",
              ".tmp",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(tmp, token + "\n", StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      return token;
    } catch (IOException e) {
      throw new StartRefusedException(
          "cannot create the admin token " + file + " (" + e + ")",
          "give gpuq.data-dir a directory gpuq's account may write, or configure gpuq.auth.tokens",
          e);
    }
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
