/**
 * Compiles a glob (`*`, `**`, `?`, `[abc]`, `[!abc]`, `{a,b}`) to an anchored
 * RegExp over POSIX relative paths: `*` and `?` never cross `/`, `**` spans
 * folders (`src/**` + `/` + `*.py` matches `src/a.py` and `src/x/y/a.py`). A pattern without `/` matches
 * the file name at any depth, as Claude Code's Glob does for `*.py`. Runs of `*`
 * collapse and the result has no nested quantifiers, so matching is linear in
 * practice. Returns null for a pattern over 1000 characters or with more than
 * 64 alternatives.
 */
export function globToRegExp(pattern: string): RegExp | null {
  if (pattern.length > 1000) return null;
  let p = pattern.replace(/^\.\//, '');
  if (!p.includes('/')) p = `**/${p}`;
  let re = '';
  let alternatives = 0;
  let braceDepth = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*') {
      let j = i;
      while (p[j + 1] === '*') j++;
      const double = j > i;
      const atSegmentStart = i === 0 || p[i - 1] === '/';
      if (double && atSegmentStart && p[j + 1] === '/') {
        re += '(?:[^/]+/)*'; // `**/`: zero or more whole folders
        i = j + 1;
      } else if (double && atSegmentStart && j + 1 === p.length) {
        re += '.*'; // trailing `**`: everything below
        i = j;
      } else {
        re += '[^/]*';
        i = j;
      }
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = p.indexOf(']', i + 2);
      if (end === -1) re += '\\[';
      else {
        let body = p.slice(i + 1, end);
        const neg = body.startsWith('!') || body.startsWith('^');
        if (neg) body = body.slice(1);
        re += `[${neg ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
        i = end;
      }
    } else if (c === '{') {
      braceDepth++;
      re += '(?:';
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--;
      re += ')';
    } else if (c === ',' && braceDepth > 0) {
      if (++alternatives > 64) return null;
      re += '|';
    } else re += c.replace(/[.+^$()|\\/]/g, '\\$&');
  }
  if (braceDepth !== 0) return null;
  try {
    return new RegExp(`^${re}$`);
  } catch {
    return null;
  }
}
