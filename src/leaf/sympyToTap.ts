/**
 * sympy's own test runner (`bin/test`, `sympy.testing.runtests`) as a TAP producer, so that
 * SWE-bench's sympy instances grade per test with SPEC §14's `tap` log format (the SPEC's
 * `log` values have no sympy format of their own).
 *
 * `frognano tasks import` wraps the sympy test command (SWE-bench's
 * `PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose <files>`)
 * in {@link sympyToTapCommand}: the runner's output goes to a file in the sandbox's `/tmp`,
 * then {@link SYMPY_TO_TAP_PY} (run with `python3 -I`: no `PYTHON*` variables, no user site,
 * nothing of the repository on `sys.path`) prints one TAP stream: `TAP version 13`, the plan,
 * every line of the runner's output as a `# ` comment (nothing the tests print can be read as
 * a test point), then one test point per test. The command exits with the runner's status.
 *
 * How `bin/test --verbose` reports a test (sympy 1.0-1.12 `runtests.py`, `PyTestReporter`):
 * `entering_test` starts a new line with the function's name and a space; the result is one
 * mark after whatever the test printed: `ok` passed, `F` failed, `E` error, `T` timeout,
 * `f` expected failure, `X` unexpected pass, `s` skipped (after the reason, or ` - `), `w` a
 * `@slow` test not run, `K` interrupted. Leaving a file appends ` [OK]` or ` [FAIL]` to the
 * last test's line. The converter reads a test from its name line (`test_<word>` at the
 * start of a line) up to the next name line, file line (`path.py[N] `, `path.py[?]   Failed
 * to import`) or report section (`____`, `====`, `tests finished:`); its status is the last
 * word of the last non-empty line, with the ` [OK]`/` [FAIL]` suffix removed; a test whose
 * last word is no mark (the log was cut while it ran) is left out, so a listed id reads as
 * `missing`. Marks: `ok` -> `ok`, `F`/`E`/`T` -> `not ok`, `f` -> `not ok # TODO` (xfail),
 * `X` -> `ok # TODO` (xpass), `s`/`w`/`K` -> `ok # SKIP`. A repeated name's last result wins,
 * in order of first appearance (as SWE-bench's dict).
 *
 * Where this reads differently from SWE-bench's `parse_log_sympy`
 * (`swebench/harness/log_parsers/python.py` at 25c52357b750af7e636daa54d03fce9861b3f3e6),
 * which takes lines that start with `test_` and end with ` ok`, ` F` or ` E`:
 * - each file's last test (`test_x ok      [OK]`) is read; SWE-bench misses it (the line ends
 *   in `[OK]`), so such an id is missing there;
 * - a test that printed output is read by its mark, not by its first line (`test_x ok printed
 *   F` then `ok` is passed here, failed there);
 * - `f`, `X`, `s`, `w`, `K`, `T` are statuses here; SWE-bench ignores them (missing);
 * - SWE-bench also marks `file.py:test_x` failed from each traceback header; no instance
 *   lists such ids, and they are not test points here.
 * The fixtures `test/fixtures/test-logs/sympy/` are real `bin/test` output (see its README).
 * @module
 */

/** The converter, a Python 3 program: `python3 -I - LOGFILE` prints the TAP stream described in this module's header. */
export const SYMPY_TO_TAP_PY = String.raw`import re, sys
MARKS = {"ok": "passed", "F": "failed", "E": "error", "T": "error", "f": "xfail", "X": "xpass", "s": "skipped", "w": "skipped", "K": "skipped"}
NAME = re.compile(r"(test_\w*)(?: (.*))?$")
FILE = re.compile(r"\S[^\[]*\.py\[(?:\d+|\?)\]")
SECTION = re.compile(r"_{4}|={4}|\s*tests finished:")
SUFFIX = re.compile(r"\s*\[(?:OK|FAIL)\]\s*$")
with open(sys.argv[1], encoding="utf-8", errors="replace", newline="") as f:
    lines = f.read().replace("\r\n", "\n").split("\n")
if lines and lines[-1] == "":
    lines.pop()
results = {}
name, last = None, ""
def close():
    word = last.split()[-1] if last.split() else ""
    if name is not None and word in MARKS:
        results[name] = MARKS[word]
for raw in lines:
    line = SUFFIX.sub("", raw)
    m = NAME.match(line)
    if m:
        close()
        name, last = m.group(1), m.group(2) or ""
    elif FILE.match(line) or SECTION.match(line):
        close()
        name, last = None, ""
    elif line.strip():
        last = line
close()
out = ["TAP version 13", "1..%d" % len(results)]
out += ["# " + l.replace("\r", "") for l in lines]
for i, (test, status) in enumerate(results.items(), 1):
    point = {"passed": "ok", "failed": "not ok", "error": "not ok", "xfail": "not ok", "xpass": "ok", "skipped": "ok"}[status]
    directive = {"xfail": " # TODO sympy f", "xpass": " # TODO sympy X", "skipped": " # SKIP sympy", "error": ""}.get(status, "")
    out.append("%s %d - %s%s" % (point, i, test, directive))
sys.stdout.write("\n".join(out) + "\n")
`;

/** The here-document delimiter of {@link sympyToTapCommand} (a line the converter never holds). */
const EOF = 'FROGNANO_SYMPY_TO_TAP';

/**
 * `command` (sympy's `bin/test ... --verbose`, run in a subshell with its output to a file)
 * followed by {@link SYMPY_TO_TAP_PY} on that output; exits with `command`'s status.
 * The result is a shell script for SPEC §14's `tests.command` with `log: "tap"`.
 */
export function sympyToTapCommand(command: string): string {
  return [
    'frognano_sympy_log=$(mktemp) || exit 125',
    `( ${command}\n) >"$frognano_sympy_log" 2>&1`,
    'frognano_sympy_status=$?',
    `python3 -I - "$frognano_sympy_log" <<'${EOF}'`,
    SYMPY_TO_TAP_PY.trimEnd(),
    EOF,
    'rm -f "$frognano_sympy_log"',
    'exit "$frognano_sympy_status"',
  ].join('\n');
}
