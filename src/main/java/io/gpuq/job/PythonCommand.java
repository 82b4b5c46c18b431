package io.gpuq.job;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A command a warm start can run as a fresh interpreter would (issue 36): a Python interpreter,
 * options that change nothing but how it runs (in the zygote's key, so that a fork gets what a cold
 * start would), then a script, {@code -m module} or {@code -c code}, and the program's arguments.
 *
 * @param interpreter the interpreter as the command names it ({@code python3}, {@code
 *     /opt/venv/bin/python})
 * @param options the interpreter's options before the program ({@code -u}, {@code -X dev})
 * @param kind what it runs
 * @param target the script's path, the module's name or the code
 * @param arguments the program's own arguments
 */
public record PythonCommand(
    String interpreter, List<String> options, Kind kind, String target, List<String> arguments) {

  /** What the interpreter runs. */
  public enum Kind {
    SCRIPT,
    MODULE,
    CODE
  }

  private static final Pattern INTERPRETER = Pattern.compile("python[0-9.]*");

  /** Options that take no value. Others (-i, -q, -V, -h, combined letters) are cold starts only. */
  private static final Set<String> FLAGS = Set.of("-u", "-O", "-OO", "-B", "-s", "-S", "-E", "-I");

  /** Options that take the next argument as their value. */
  private static final Set<String> WITH_VALUE = Set.of("-X", "-W");

  public PythonCommand {
    options = List.copyOf(options);
    arguments = List.copyOf(arguments);
  }

  /** The command as a warm start reads it, or empty when a warm start cannot run it. */
  public static Optional<PythonCommand> parse(List<String> command) {
    if (command.isEmpty() || command.stream().anyMatch(java.util.Objects::isNull)) {
      return Optional.empty();
    }
    String program = command.get(0);
    if (!INTERPRETER.matcher(program.substring(program.lastIndexOf('/') + 1)).matches()) {
      return Optional.empty();
    }
    int i = 1;
    int first = 1;
    while (i < command.size()) {
      String arg = command.get(i);
      if (arg == null) {
        return Optional.empty();
      }
      if (FLAGS.contains(arg)) {
        i++;
      } else if (WITH_VALUE.contains(arg) && i + 1 < command.size()) {
        i += 2;
      } else {
        break;
      }
    }
    if (i >= command.size()) {
      return Optional.empty();
    }
    List<String> options = command.subList(first, i);
    String arg = command.get(i);
    if ((arg.equals("-m") || arg.equals("-c")) && i + 1 < command.size()) {
      String target = command.get(i + 1);
      if (target == null || target.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(
          new PythonCommand(
              program,
              options,
              arg.equals("-m") ? Kind.MODULE : Kind.CODE,
              target,
              command.subList(i + 2, command.size())));
    }
    if (arg.startsWith("-") || arg.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new PythonCommand(
            program, options, Kind.SCRIPT, arg, command.subList(i + 1, command.size())));
  }
}
