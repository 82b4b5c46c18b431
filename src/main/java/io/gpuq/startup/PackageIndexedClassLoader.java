package io.gpuq.startup;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLConnection;
import java.security.CodeSigner;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * A class loader over the same jars as a {@link URLClassLoader}, which finds a class or resource
 * only in the jars that hold an entry in its directory.
 *
 * <p>Why: {@link URLClassLoader} looks for each class in its jars one after the other. Spring
 * Boot's launcher gives it gpuq's 100-odd nested libraries, and every miss there builds and parses
 * a URL: at start-up that search took about a third of the JVM's CPU time (docs/benchmarks.md,
 * "Start-up"). The index maps each directory of class and resource entries to the jars that have
 * entries in it, so most lookups open one jar, and a class no jar holds is refused at once.
 *
 * <p>A class is defined as {@link URLClassLoader} defines it: the same code source (the jar's URL),
 * protection domain and package attributes from the jar's manifest. Signed jars are not verified
 * (gpuq bundles none). Jars the index cannot list, and names it does not cover (directories, {@code
 * getResources}), are searched the usual way.
 */
public final class PackageIndexedClassLoader extends URLClassLoader {

  static {
    registerAsParallelCapable();
  }

  private static final String VERSIONS = "META-INF/versions/";

  private final URL[] bases;
  private final JarFile[] jars;
  private final Manifest[] manifests;
  private final Map<String, int[]> jarsByDirectory;
  private final boolean everyJarIndexed;

  private PackageIndexedClassLoader(
      URL[] bases, JarFile[] jars, Map<String, int[]> jarsByDirectory, ClassLoader parent) {
    super(bases, parent);
    this.bases = bases;
    this.jars = jars;
    this.manifests = new Manifest[jars.length];
    this.jarsByDirectory = jarsByDirectory;
    this.everyJarIndexed = Arrays.stream(jars).allMatch(jar -> jar != null);
  }

  /** Indexes the jars behind {@code urls}; a URL that is not a jar is left to the usual search. */
  public static PackageIndexedClassLoader over(URL[] urls, ClassLoader parent) {
    URL[] bases = urls.clone();
    JarFile[] jars = new JarFile[bases.length];
    Map<String, List<Integer>> index = new HashMap<>();
    int release = Runtime.version().feature();
    for (int i = 0; i < bases.length; i++) {
      jars[i] = openJar(bases[i]);
      if (jars[i] != null) {
        addEntries(index, i, jars[i], release);
      }
    }
    Map<String, int[]> jarsByDirectory = new HashMap<>(index.size() * 2);
    index.forEach(
        (directory, in) ->
            jarsByDirectory.put(directory, in.stream().mapToInt(Integer::intValue).toArray()));
    return new PackageIndexedClassLoader(bases, jars, jarsByDirectory, parent);
  }

  private static JarFile openJar(URL url) {
    try {
      URLConnection connection = url.openConnection();
      if (connection instanceof JarURLConnection jar && jar.getEntryName() == null) {
        return jar.getJarFile();
      }
    } catch (IOException | RuntimeException unreadable) {
      // Searched the usual way.
    }
    return null;
  }

  private static void addEntries(
      Map<String, List<Integer>> index, int jar, JarFile file, int release) {
    Enumeration<JarEntry> entries = file.entries();
    while (entries.hasMoreElements()) {
      JarEntry entry = entries.nextElement();
      if (entry.isDirectory()) {
        continue;
      }
      String name = versionedName(entry.getName(), release);
      if (name == null) {
        continue;
      }
      List<Integer> in = index.computeIfAbsent(directoryOf(name), d -> new ArrayList<>(1));
      if (in.isEmpty() || in.get(in.size() - 1) != jar) {
        in.add(jar);
      }
    }
  }

  /**
   * The name under which a multi-release jar serves {@code name} on this JVM, or null for an entry
   * of a later release.
   */
  private static String versionedName(String name, int release) {
    if (!name.startsWith(VERSIONS)) {
      return name;
    }
    int slash = name.indexOf('/', VERSIONS.length());
    if (slash < 0) {
      return null;
    }
    try {
      int version = Integer.parseInt(name.substring(VERSIONS.length(), slash));
      return version <= release ? name.substring(slash + 1) : null;
    } catch (NumberFormatException notAVersion) {
      return name;
    }
  }

  private static String directoryOf(String name) {
    int slash = name.lastIndexOf('/');
    return slash < 0 ? "" : name.substring(0, slash);
  }

  @Override
  protected Class<?> findClass(String name) throws ClassNotFoundException {
    String path = name.replace('.', '/').concat(".class");
    int[] candidates = jarsByDirectory.get(directoryOf(path));
    if (candidates != null) {
      for (int jar : candidates) {
        JarEntry entry = jars[jar].getJarEntry(path);
        if (entry != null) {
          return define(name, jar, entry);
        }
      }
    }
    if (everyJarIndexed) {
      throw new ClassNotFoundException(name);
    }
    return super.findClass(name);
  }

  private Class<?> define(String name, int jar, JarEntry entry) throws ClassNotFoundException {
    byte[] bytes;
    try (InputStream in = jars[jar].getInputStream(entry)) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new ClassNotFoundException(name, e);
    }
    int dot = name.lastIndexOf('.');
    if (dot > 0) {
      definePackageOnce(name.substring(0, dot), jar);
    }
    CodeSource source = new CodeSource(bases[jar], (CodeSigner[]) null);
    return defineClass(name, bytes, 0, bytes.length, source);
  }

  private void definePackageOnce(String packageName, int jar) {
    if (getDefinedPackage(packageName) != null) {
      return;
    }
    try {
      Manifest manifest = manifestOf(jar);
      if (manifest != null) {
        definePackage(packageName, manifest, bases[jar]);
      } else {
        definePackage(packageName, null, null, null, null, null, null, null);
      }
    } catch (IllegalArgumentException definedMeanwhile) {
      // Another thread defined it first: the same package.
    }
  }

  private Manifest manifestOf(int jar) {
    synchronized (manifests) {
      if (manifests[jar] == null) {
        try {
          manifests[jar] = jars[jar].getManifest();
        } catch (IOException unreadable) {
          return null;
        }
      }
      return manifests[jar];
    }
  }

  @Override
  public URL findResource(String name) {
    if (everyJarIndexed && !name.isEmpty() && !name.endsWith("/")) {
      int[] candidates = jarsByDirectory.get(directoryOf(name));
      if (candidates == null) {
        return null;
      }
    }
    return super.findResource(name);
  }
}
