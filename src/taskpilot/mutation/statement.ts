/**
 * The statement of a mutation candidate without a generator (SPEC §15: "from the failing
 * tests' names and messages without the fix"), at three levels from least to most specific:
 * 0. what fails, in words built from the failing tests' names (the first 8, the rest counted);
 * 1. that, plus the failures' messages (pytest's `-rA` short summary `FAILED id - message`,
 *    TAP's `error:` lines), the first 8, object addresses (`0x7f...`) blanked, each cut to 200 characters (the runs set
 *    `COLUMNS=1000` so that pytest does not cut them to a terminal's width);
 * 2. that, plus the file and function where the bug is.
 * None says what the fix is (the original code never appears).
 * @module
 */
import type { MutationLogFormat } from './testRun.js';

const MESSAGE_CHARS = 200;
/** Failing tests named (level 0) or quoted (level 1) at most; the rest are counted. */
const LISTED = 8;

/** A test id in words: its last name part, `test`/`_`/camelCase split (`test_parse_empty` -> `parse empty`). */
export function testWords(id: string): string {
  const last = id.split(/::| > |\./).filter((p) => p !== '').pop() ?? id;
  const bare = last.replace(/\[.*\]$/, '').replace(/^test_?/i, '');
  const words = bare.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-]+/g, ' ').trim().toLowerCase();
  return words === '' ? last : words;
}

/** The failure message of each id the log states one for (pytest short summary, TAP `error:`). */
export function failureMessages(log: string, format: MutationLogFormat): Map<string, string> {
  const out = new Map<string, string>();
  const cut = (raw: string): string => {
    const s = raw.replace(/\b0x[0-9a-f]{6,}\b/g, '0x...');
    return s.length > MESSAGE_CHARS ? `${s.slice(0, MESSAGE_CHARS)}...` : s;
  };
  if (format === 'pytest') {
    for (const m of log.matchAll(/^(?:FAILED|ERROR) (\S+) - (.+)$/gm)) out.set(m[1]!, cut(m[2]!.trim()));
    return out;
  }
  if (format === 'tap') {
    let current: string | null = null;
    for (const line of log.split('\n')) {
      const t = /^\s*not ok \d+ - (.+?)(?:\s+#.*)?$/.exec(line);
      if (t) current = t[1]!.trim();
      const e = /^\s*error: (.+)$/.exec(line);
      if (e && current !== null && !out.has(current)) out.set(current, cut(e[1]!.replace(/^['"|>-]+\s*|['"]$/g, '').trim()));
    }
  }
  return out;
}

/** The message of a failing id: an exact match, else one whose key ends the id (TAP names are the last part). */
function messageOf(id: string, messages: ReadonlyMap<string, string>): string | undefined {
  const exact = messages.get(id);
  if (exact !== undefined) return exact;
  for (const [k, v] of messages) if (id.endsWith(k)) return v;
  return undefined;
}

/** The three statement levels (see the module). */
export function statementLevels(failing: readonly string[], messages: ReadonlyMap<string, string>, where: { file: string; function: string }): string[] {
  const all = [...new Set(failing.map(testWords))];
  const words = all.slice(0, LISTED).map((w) => `"${w}"`);
  if (all.length > LISTED) words.push(`${all.length - LISTED} more`);
  const l0 = `A regression broke existing behaviour: ${words.join(', ')} no longer work${all.length === 1 ? 's' : ''} as the test suite expects (${failing.length} test${failing.length === 1 ? '' : 's'} now fail${failing.length === 1 ? 's' : ''}). Find and fix the bug in the library code; do not change the tests.`;
  const quoted = failing.flatMap((id) => {
    const m = messageOf(id, messages);
    return m === undefined ? [] : [`- ${id}: ${m}`];
  });
  const lines = quoted.length > LISTED ? [...quoted.slice(0, LISTED), `- (${quoted.length - LISTED} more failures)`] : quoted;
  const l1 = lines.length === 0 ? `${l0}\nFailing tests:\n${failing.slice(0, LISTED).map((id) => `- ${id}`).join('\n')}${failing.length > LISTED ? `\n- (${failing.length - LISTED} more)` : ''}` : `${l0}\nThe failures say:\n${lines.join('\n')}`;
  const l2 = `${l1}\nThe bug is in \`${where.function}\` in ${where.file}.`;
  return [l0, l1, l2];
}
