/** One token of a path segment's pattern. */
type Token = { k: 'lit'; c: string } | { k: 'one' } | { k: 'star' } | { k: 'class'; neg: boolean; ranges: [string, string][] };
/** A segment: `**` (any number of whole folders) or a sequence of tokens. */
type Segment = '**' | Token[];

/** Alternatives at most across a pattern's brace groups, and expanded patterns at most. */
const MAX_ALTERNATIVES = 64;
const MAX_EXPANSIONS = 256;

/**
 * Expands `{a,b}` groups (nested too) into the list of plain patterns; `[...]`
 * classes are copied as they are. Null when a brace is unbalanced, or there are
 * more than 64 alternatives or 256 expansions.
 */
function expandBraces(p: string): string[] | null {
  let i = 0;
  let alternatives = 0;
  // sequence := (text | group)*, ending at `,` / `}` inside a group, or at the end
  const sequence = (inGroup: boolean): string[] | null => {
    let out = [''];
    while (i < p.length) {
      const c = p[i]!;
      if (inGroup && (c === ',' || c === '}')) return out;
      if (c === '{') {
        i++;
        const alts: string[] = [];
        for (;;) {
          const a = sequence(true);
          if (a === null) return null;
          alts.push(...a);
          if (i >= p.length) return null; // unbalanced
          if (p[i] === '}') break;
          i++; // ','
        }
        i++; // '}'
        alternatives += alts.length;
        if (alternatives > MAX_ALTERNATIVES) return null;
        out = out.flatMap((x) => alts.map((a) => x + a));
        if (out.length > MAX_EXPANSIONS) return null;
      } else if (c === '[') {
        const end = p.indexOf(']', i + 2);
        const stop = end === -1 ? i + 1 : end + 1;
        const text = p.slice(i, stop);
        out = out.map((x) => x + text);
        i = stop;
      } else {
        out = out.map((x) => x + c);
        i++;
      }
    }
    return inGroup ? null : out;
  };
  return sequence(false);
}

/** Parses one segment (no `/`) into tokens; null for an invalid class range such as `[z-a]`. */
function parseSegment(seg: string): Segment | null {
  if (seg === '**') return '**';
  const tokens: Token[] = [];
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '*') {
      while (seg[i + 1] === '*') i++;
      tokens.push({ k: 'star' });
    } else if (c === '?') tokens.push({ k: 'one' });
    else if (c === '[' && seg.indexOf(']', i + 2) !== -1) {
      const end = seg.indexOf(']', i + 2);
      let body = seg.slice(i + 1, end);
      const neg = body.startsWith('!') || body.startsWith('^');
      if (neg) body = body.slice(1);
      const ranges: [string, string][] = [];
      for (let j = 0; j < body.length; j++) {
        if (body[j + 1] === '-' && j + 2 < body.length) {
          if (body[j]! > body[j + 2]!) return null;
          ranges.push([body[j]!, body[j + 2]!]);
          j += 2;
        } else ranges.push([body[j]!, body[j]!]);
      }
      tokens.push({ k: 'class', neg, ranges });
      i = end;
    } else tokens.push({ k: 'lit', c });
  }
  return tokens;
}

function matchesOne(t: Token, ch: string): boolean {
  if (t.k === 'one') return true;
  if (t.k === 'lit') return t.c === ch;
  if (t.k === 'class') return t.ranges.some(([lo, hi]) => ch >= lo && ch <= hi) !== t.neg;
  return false;
}

/**
 * Wildcard match of one segment, greedy with a single backtrack point (the last
 * `*`): O(length x tokens) in the worst case, never exponential.
 */
function matchSegment(tokens: Token[], s: string): boolean {
  let ti = 0;
  let si = 0;
  let starT = -1;
  let starS = 0;
  while (si < s.length) {
    const t = tokens[ti];
    if (t !== undefined && t.k === 'star') {
      starT = ti++;
      starS = si;
    } else if (t !== undefined && matchesOne(t, s[si]!)) {
      ti++;
      si++;
    } else if (starT >= 0) {
      ti = starT + 1;
      si = ++starS;
    } else return false;
  }
  while (tokens[ti]?.k === 'star') ti++;
  return ti === tokens.length;
}

/** Matches path segments against pattern segments by dynamic programming over (pattern, path) positions. */
function matchPath(pattern: Segment[], segs: string[]): boolean {
  const P = pattern.length;
  const S = segs.length;
  // memo[pi * (S + 1) + si]: 0 unknown, 1 false, 2 true
  const memo = new Uint8Array((P + 1) * (S + 1));
  const go = (pi: number, si: number): boolean => {
    const key = pi * (S + 1) + si;
    if (memo[key] !== 0) return memo[key] === 2;
    let r: boolean;
    if (pi === P) r = si === S;
    else {
      const seg = pattern[pi]!;
      if (seg === '**') {
        // `**/`: zero or more whole folders; a trailing `**`: everything below (one or more)
        const last = pi === P - 1;
        r = (!last && go(pi + 1, si)) || (si < S && (go(pi, si + 1) || (last && si + 1 === S)));
      } else r = si < S && matchSegment(seg, segs[si]!) && go(pi + 1, si + 1);
    }
    memo[key] = r ? 2 : 1;
    return r;
  };
  return go(0, 0);
}

/** A compiled glob: whether a relative POSIX path matches. */
export type GlobMatcher = (path: string) => boolean;

/**
 * Compiles a glob (`*`, `**`, `?`, `[abc]`, `[a-z]`, `[!abc]`, `{a,b}`) into a
 * matcher of POSIX relative paths: `*`, `?` and classes never cross `/`, `**`
 * as a whole segment spans folders (`src/**` + `/` + `*.py` matches `src/a.py`
 * and `src/x/y/a.py`; a trailing `**` matches everything below). A pattern
 * without `/` matches the file name at any depth, as Claude Code's Glob does for
 * `*.py`. The pattern is model-chosen, so matching never backtracks
 * exponentially: braces are expanded first (at most 64 alternatives, 256
 * patterns), each segment is matched greedily with one backtrack point
 * (O(name x pattern)), and `**` by dynamic programming over the segments
 * (O(pattern segments x path segments)).
 *
 * @returns the matcher, or null for a pattern over 1000 characters, an
 *   unbalanced brace, too many alternatives, or an inverted class range (`[z-a]`)
 * @example compileGlob('src/**' + '/*.ts')!('src/a/b.ts') // true
 */
export function compileGlob(pattern: string): GlobMatcher | null {
  if (pattern.length > 1000) return null;
  let p = pattern.replace(/^(?:\.\/)+/, '');
  if (!p.includes('/')) p = `**/${p}`;
  const expanded = expandBraces(p);
  if (expanded === null) return null;
  const compiled: Segment[][] = [];
  for (const e of expanded) {
    const segs = e.split('/').map(parseSegment);
    if (segs.some((s) => s === null)) return null;
    compiled.push(segs as Segment[]);
  }
  return (path: string): boolean => {
    const segs = path.split('/');
    return compiled.some((c) => matchPath(c, segs));
  };
}
