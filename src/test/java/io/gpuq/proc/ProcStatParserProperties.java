package io.gpuq.proc;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class ProcStatParserProperties {

  @Property
  @Label("any command name, even with spaces and parentheses, parses back to the same numbers")
  void roundTrip(
      @ForAll("commands") String comm,
      @ForAll @LongRange(min = 1, max = 4_194_304) long pid,
      @ForAll @LongRange(min = 0, max = 4_194_304) long ppid,
      @ForAll @LongRange(min = 0, max = 1L << 40) long utime,
      @ForAll @LongRange(min = 0, max = 1L << 40) long stime,
      @ForAll @LongRange(min = 0, max = 1L << 50) long startTime,
      @ForAll @LongRange(min = 0, max = 1L << 40) long rssPages) {
    String line =
        pid
            + " ("
            + comm
            + ") S "
            + ppid
            + " 1 1 0 -1 4194560 100 0 0 0 "
            + utime
            + " "
            + stime
            + " 0 0 20 0 1 0 "
            + startTime
            + " 123456 "
            + rssPages
            + " 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

    ProcStat stat = ProcStatParser.parse(line, 4096).orElseThrow();

    assertThat(stat).isEqualTo(new ProcStat(pid, ppid, startTime, rssPages * 4096, utime + stime));
  }

  @Property
  @Label("a dead process (state X, being reaped, its ppid shown as 0) is gone, not an orphan")
  void deadProcesses(
      @ForAll("commands") String comm, @ForAll @LongRange(min = 0, max = 4_194_304) long ppid) {
    String line =
        "4242 (" + comm + ") X " + ppid + " 0 0 0 -1 4194560 0 0 0 0 5 6 0 0 20 0 1 0 77 0 0\n";

    assertThat(ProcStatParser.parse(line, 4096)).isEmpty();
    assertThat(ProcStatParser.parse(line.replace(") X ", ") Z "), 4096))
        .as("a zombie is still its parent's child")
        .contains(new ProcStat(4242, ppid, 77, 0, 11));
  }

  @Property
  @Label("a cut-off stat line is rejected unless all needed fields survived; never thrown")
  void truncatedLines(@ForAll("commands") String comm, @ForAll @IntRange(max = 200) int cut) {
    String needed = "42 (" + comm + ") S 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 77 1 2";
    String line = needed + " 0 0 0";
    String truncated = line.substring(0, Math.min(cut, line.length()));

    var parsed = ProcStatParser.parse(truncated, 4096);

    if (truncated.length() >= needed.length()) {
      assertThat(parsed).contains(new ProcStat(42, 1, 77, 2 * 4096, 11));
    } else if (truncated.contains(") S")) {
      assertThat(parsed).isEmpty();
    }
  }

  @Property
  @Label("arbitrary bytes never make the parser throw")
  void arbitraryBytes(@ForAll byte[] bytes) {
    ProcStatParser.parse(bytes, bytes.length, 4096);
  }

  @Provide
  Arbitrary<String> commands() {
    return Arbitraries.strings().withChars("ab) (_-:0123456789").ofMinLength(0).ofMaxLength(64);
  }
}
