package io.gpuq.startup;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URLClassLoader;

/**
 * Runs an application's {@code main} again in a {@link PackageIndexedClassLoader} when Spring
 * Boot's launcher started it from the executable jar, before anything else is loaded.
 */
public final class IndexedStart {

  /** {@code -Dgpuq.indexed-class-loading=false} keeps Spring Boot's own class loader. */
  public static final String SWITCH = "gpuq.indexed-class-loading";

  private IndexedStart() {}

  /**
   * Whether {@code mainClass} was loaded by Spring Boot's launcher from the executable jar, and may
   * be started again in the indexed class loader.
   */
  public static boolean applies(Class<?> mainClass) {
    ClassLoader loader = mainClass.getClassLoader();
    return loader instanceof URLClassLoader
        && loader.getClass().getName().startsWith("org.springframework.boot.loader.")
        && !"false".equals(System.getProperty(SWITCH));
  }

  /**
   * Loads {@code mainClass} again in an indexed class loader over the same jars and runs its {@code
   * main(args)} there, as the thread's context class loader.
   */
  public static void runAgainIndexed(Class<?> mainClass, String[] args) throws Throwable {
    URLClassLoader launched = (URLClassLoader) mainClass.getClassLoader();
    ClassLoader indexed = PackageIndexedClassLoader.over(launched.getURLs(), launched.getParent());
    Thread.currentThread().setContextClassLoader(indexed);
    Method main = indexed.loadClass(mainClass.getName()).getMethod("main", String[].class);
    try {
      main.invoke(null, (Object) args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
