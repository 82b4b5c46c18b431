package io.gpuq.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.startup.fixture.alpha.Alpha;
import io.gpuq.startup.fixture.alpha.AlphaTwo;
import io.gpuq.startup.fixture.beta.Beta;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "The package-indexed class loader finds what a URLClassLoader over the same jars finds")
class PackageIndexedClassLoaderTest {

  @TempDir Path dir;

  @Test
  void loads_each_class_from_the_jar_that_holds_it_with_that_jar_as_its_code_source()
      throws Exception {
    URL alphaJar = jar("alpha.jar").with(Alpha.class).write();
    URL betaJar = jar("beta.jar").with(Beta.class).write();

    try (PackageIndexedClassLoader loader = over(alphaJar, betaJar)) {
      Class<?> alpha = loader.loadClass(Alpha.class.getName());
      Class<?> beta = loader.loadClass(Beta.class.getName());

      assertThat(alpha.getClassLoader()).isSameAs(loader);
      assertThat(alpha).isNotSameAs(Alpha.class);
      assertThat(alpha.getProtectionDomain().getCodeSource().getLocation()).isEqualTo(alphaJar);
      assertThat(beta.getProtectionDomain().getCodeSource().getLocation()).isEqualTo(betaJar);
    }
  }

  @Test
  void finds_the_classes_of_a_package_split_over_two_jars() throws Exception {
    URL one = jar("one.jar").with(Alpha.class).write();
    URL two = jar("two.jar").with(AlphaTwo.class).write();

    try (PackageIndexedClassLoader loader = over(one, two)) {
      assertThat(loader.loadClass(Alpha.class.getName()).getName())
          .isEqualTo(Alpha.class.getName());
      assertThat(loader.loadClass(AlphaTwo.class.getName()).getProtectionDomain())
          .extracting(domain -> domain.getCodeSource().getLocation())
          .isEqualTo(two);
    }
  }

  @Test
  void refuses_a_class_or_resource_that_no_jar_holds() throws Exception {
    URL alphaJar = jar("alpha.jar").with(Alpha.class).resource("conf/a.txt", "a").write();

    try (PackageIndexedClassLoader loader = over(alphaJar)) {
      assertThatThrownBy(() -> loader.loadClass("io.gpuq.startup.fixture.alpha.Missing"))
          .isInstanceOf(ClassNotFoundException.class);
      assertThatThrownBy(() -> loader.loadClass("io.gpuq.startup.fixture.gamma.Missing"))
          .isInstanceOf(ClassNotFoundException.class);
      assertThat(loader.getResource("conf/missing.txt")).isNull();
      assertThat(loader.getResource("elsewhere/a.txt")).isNull();
    }
  }

  @Test
  void serves_resources_in_class_path_order_and_all_of_them_on_request() throws Exception {
    URL first = jar("first.jar").resource("conf/settings.txt", "first").write();
    URL second =
        jar("second.jar")
            .resource("conf/settings.txt", "second")
            .resource("conf/only-here.txt", "only")
            .write();

    try (PackageIndexedClassLoader loader = over(first, second)) {
      assertThat(read(loader.getResource("conf/settings.txt"))).isEqualTo("first");
      assertThat(read(loader.getResource("conf/only-here.txt"))).isEqualTo("only");
      List<String> all = new ArrayList<>();
      for (URL url : Collections.list(loader.getResources("conf/settings.txt"))) {
        all.add(read(url));
      }
      assertThat(all).containsExactly("first", "second");
    }
  }

  @Test
  void gives_each_package_the_attributes_of_its_jars_manifest() throws Exception {
    URL alphaJar =
        jar("alpha.jar").with(Alpha.class).implementation("Alpha library", "1.2.3").write();

    try (PackageIndexedClassLoader loader = over(alphaJar)) {
      Package alphaPackage = loader.loadClass(Alpha.class.getName()).getPackage();

      assertThat(alphaPackage.getName()).isEqualTo(Alpha.class.getPackageName());
      assertThat(alphaPackage.getImplementationTitle()).isEqualTo("Alpha library");
      assertThat(alphaPackage.getImplementationVersion()).isEqualTo("1.2.3");
    }
  }

  @Test
  void does_not_serve_an_entry_meant_for_a_later_java_release() throws Exception {
    URL multiRelease =
        jar("multi-release.jar")
            .multiRelease()
            .resource("META-INF/versions/9999/later/only.txt", "later")
            .write();

    try (PackageIndexedClassLoader loader = over(multiRelease)) {
      assertThat(loader.getResource("later/only.txt")).isNull();
    }
  }

  @Test
  void searches_a_directory_on_the_class_path_as_usual() throws Exception {
    Path classes = Files.createDirectories(dir.resolve("classes/conf"));
    Files.writeString(classes.resolve("from-directory.txt"), "directory");
    URL alphaJar = jar("alpha.jar").with(Alpha.class).write();

    try (PackageIndexedClassLoader loader =
        over(dir.resolve("classes").toUri().toURL(), alphaJar)) {
      assertThat(read(loader.getResource("conf/from-directory.txt"))).isEqualTo("directory");
      assertThat(loader.loadClass(Alpha.class.getName()).getClassLoader()).isSameAs(loader);
    }
  }

  /** The platform loader as parent: the fixtures are on this test's class path, not there. */
  private static PackageIndexedClassLoader over(URL... urls) {
    return PackageIndexedClassLoader.over(urls, ClassLoader.getPlatformClassLoader());
  }

  private static String read(URL url) throws IOException {
    try (InputStream in = url.openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private JarBuilder jar(String name) {
    return new JarBuilder(dir.resolve(name));
  }

  private static final class JarBuilder {
    private final Path path;
    private final Manifest manifest = new Manifest();
    private final Map<String, byte[]> entries = new LinkedHashMap<>();

    JarBuilder(Path path) {
      this.path = path;
      manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    }

    JarBuilder with(Class<?> type) throws IOException {
      String name = type.getName().replace('.', '/') + ".class";
      try (InputStream in = type.getClassLoader().getResourceAsStream(name)) {
        entries.put(name, in.readAllBytes());
      }
      return this;
    }

    JarBuilder resource(String name, String text) {
      entries.put(name, text.getBytes(StandardCharsets.UTF_8));
      return this;
    }

    JarBuilder implementation(String title, String version) {
      manifest.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_TITLE, title);
      manifest.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_VERSION, version);
      return this;
    }

    JarBuilder multiRelease() {
      manifest.getMainAttributes().put(Attributes.Name.MULTI_RELEASE, "true");
      return this;
    }

    /** Writes the jar and answers its URL as a class loader takes it: {@code jar:file:...!/}. */
    URL write() throws IOException {
      try (OutputStream file = Files.newOutputStream(path);
          JarOutputStream jar = new JarOutputStream(file, manifest)) {
        for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
          jar.putNextEntry(new JarEntry(entry.getKey()));
          jar.write(entry.getValue());
          jar.closeEntry();
        }
      }
      return new URL("jar:" + path.toUri() + "!/");
    }
  }
}
