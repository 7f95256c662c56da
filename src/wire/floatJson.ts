/**
 * JSON for the wire, with rewards, scores and advantages always written as
 * floating-point numbers (SPEC §11).
 *
 * `JSON.stringify(1)` is `1`, which Python's `json` parses as `int`. A batch of
 * 0/1 rewards then becomes an integer `torch.tensor`, and OpenRLHF's group
 * normalisation fails on `.std()` ("std and var only support floating point").
 * Every number a trainer turns into a reward tensor is therefore written with a
 * fraction part: `1.0`, `0.0`, `-0.5`, `1e+21`.
 *
 * Which numbers: those held, directly or in (nested) arrays, by a field named in
 * {@link FLOAT_FIELDS} (`reward(s)`, `raw`, `score(s)`, `advantage(s)`), and every
 * number under a field of {@link FLOAT_OBJECT_FIELDS} (`extra_logs`). Objects
 * inside a float field keep their own rule (a judge's integer rubric scores stay
 * integers). Everything else is written exactly as `JSON.stringify` writes it,
 * including `null` for NaN and ±Infinity, but for the escapes of
 * {@link stringifyWire}.
 * @module
 */

/** Field names whose numbers (and numbers in their arrays) are written as floats. */
export const FLOAT_FIELDS: ReadonlySet<string> = new Set(['reward', 'rewards', 'raw', 'score', 'scores', 'advantage', 'advantages']);

/** Field names whose children are all float fields (OpenRLHF's per-query `extra_logs` lists). */
export const FLOAT_OBJECT_FIELDS: ReadonlySet<string> = new Set(['extra_logs']);

/**
 * One number as a JSON float: `1` -> `1.0`, `-0` -> `-0.0`, `0.25` -> `0.25`,
 * `1e21` -> `1e+21` (already a float to Python); NaN and ±Infinity -> `null`, as
 * `JSON.stringify` writes them.
 */
export function floatToJson(x: number): string {
  if (!Number.isFinite(x)) return 'null';
  if (Object.is(x, -0)) return '-0.0';
  const s = String(x);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 /* . */ || c === 101 /* e */) return s;
  }
  return `${s}.0`;
}

/** How a value is written: plain JSON, a float field, or an object whose children are float fields. */
type Mode = 0 | 1 | 2;
const Mode = { Plain: 0, Float: 1, FloatChildren: 2 } as const;

function write(v: unknown, mode: Mode, out: string[]): boolean {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(): unknown }).toJSON();
  switch (typeof v) {
    case 'number':
      out.push(mode === Mode.Float ? floatToJson(v) : Number.isFinite(v) ? String(v) : 'null');
      return true;
    case 'string':
      out.push(JSON.stringify(v));
      return true;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return true;
    case 'bigint':
      // the same TypeError JSON.stringify throws
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      break;
    default:
      return false; // undefined, function, symbol: omitted (null inside arrays)
  }
  if (v === null) {
    out.push('null');
    return true;
  }
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    const a = v as ArrayLike<unknown>;
    // an array inside a float field holds floats; an array of extra_logs children does too
    const inner = mode === Mode.Plain ? Mode.Plain : Mode.Float;
    out.push('[');
    for (let i = 0; i < a.length; i++) {
      if (i > 0) out.push(',');
      if (!write(a[i], inner, out)) out.push('null');
    }
    out.push(']');
    return true;
  }
  out.push('{');
  let first = true;
  for (const key of Object.keys(v)) {
    const child = (v as Record<string, unknown>)[key];
    const childMode = mode === Mode.FloatChildren || FLOAT_FIELDS.has(key) ? Mode.Float : FLOAT_OBJECT_FIELDS.has(key) ? Mode.FloatChildren : Mode.Plain;
    const mark = out.length;
    out.push(first ? '' : ',', JSON.stringify(key), ':');
    if (write(child, childMode, out)) first = false;
    else out.length = mark; // an omitted value leaves no key behind
  }
  out.push('}');
  return true;
}

/** DEL, the C1 controls and the line and paragraph separators, which `JSON.stringify` writes raw. */
const RAW_UNSAFE = /[\u007f-\u009f\u2028\u2029]/;
const RAW_UNSAFE_ALL = /[\u007f-\u009f\u2028\u2029]/g;

/** One character as a JSON `\uXXXX` escape (lower-case hex, as `JSON.stringify` writes `\u001f`). */
function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `text` (JSON from `JSON.stringify` pieces) with DEL, the C1 controls and
 * U+2028 / U+2029 escaped, so a JSONL line holds no character that a
 * terminal, a pager, a JavaScript parser before ES2019 or a line splitter
 * that honours Unicode line breaks (Python's `str.splitlines`) takes for a
 * control or a line end. Lone surrogates need nothing here: `JSON.stringify`
 * (ES2019, well-formed) already writes them as `\udXXX`, keys included.
 *
 * A global replace is correct: outside strings, JSON text is ASCII (structure,
 * numbers, literals), and an escape sequence is ASCII too, so each of these
 * characters is a raw character inside a string, and its escape denotes the
 * same character: the text parses back to the same value. The scan costs one
 * regex test; the replace runs only when such a character is there.
 */
function escapeRawUnsafe(text: string): string {
  return RAW_UNSAFE.test(text) ? text.replace(RAW_UNSAFE_ALL, unicodeEscape) : text;
}

/**
 * `JSON.stringify(value)`, except that rewards, scores and advantages are
 * written as floats (see the module comment), and that DEL, the C1 controls
 * and U+2028 / U+2029 are escaped inside strings (`\u007f`, `\u0085`,
 * `\u2028`): a line of `rollouts.jsonl` or an answer of the service holds no
 * raw control or Unicode line break, and still parses to the same value.
 *
 * @param value - a JSON-compatible value (objects with `toJSON` are honoured)
 * @param rootIsFloat - the value itself is a reward (slime's bare-number answer): its numbers are floats
 * @example
 * stringifyWire({ rewards: [1, 0, 0.5], kept: true, n: 3 }); // '{"rewards":[1.0,0.0,0.5],"kept":true,"n":3}'
 * stringifyWire(1, true);                                   // '1.0'
 */
export function stringifyWire(value: unknown, rootIsFloat = false): string {
  const out: string[] = [];
  // JSON.stringify(undefined) is undefined; on the wire an absent value is null
  if (!write(value, rootIsFloat ? Mode.Float : Mode.Plain, out)) return 'null';
  return escapeRawUnsafe(out.join(''));
}
