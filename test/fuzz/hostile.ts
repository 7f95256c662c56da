/**
 * Hostile inputs for the fuzz suite (test/fuzz/fuzz.test.ts): numbers at the
 * edges of float64, typed arrays, DataView, sparse and huge array-likes, objects
 * with throwing getters, Proxy objects, own `__proto__` keys, deep nesting, and
 * the mutations that plant them inside otherwise valid arguments.
 *
 * Everything is built fresh per call (factories), so a function that mutates its
 * input cannot leak state into the next run.
 */
import fc from 'fast-check';

/**
 * The one exception a hostile getter or Proxy trap throws. A library function
 * may let it propagate unchanged (it is the caller's own exception; wrapping it
 * would hide the caller's bug), so the harness accepts exactly this object.
 */
export class HostileGetterError extends Error {
  constructor() {
    super('hostile getter (thrown by the fuzz input itself)');
    this.name = 'HostileGetterError';
  }
}
export const HOSTILE_THROW = new HostileGetterError();

/** Numbers that break naive float64 code. */
export const HOSTILE_NUMBERS: readonly number[] = [
  NaN,
  Infinity,
  -Infinity,
  -0,
  0,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  5e-324,
  -5e-324,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  Number.MAX_SAFE_INTEGER,
  0.5,
  1.5,
  -1,
  -0.5,
  1e-300,
  1e15,
  2 ** 32,
  2 ** 31,
  -(2 ** 31) - 1,
  1e9,
];

/** A Proxy that behaves exactly like `target`. */
export function transparentProxy<T extends object>(target: T): T {
  return new Proxy(target, {});
}

/** A Proxy whose every property read, key listing and `in` check throws {@link HOSTILE_THROW}. */
export function throwingProxy<T extends object>(target: T): T {
  const boom = (): never => {
    throw HOSTILE_THROW;
  };
  return new Proxy(target, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom });
}

/** An object whose `key` getter throws {@link HOSTILE_THROW} (the other keys copied as they are). */
export function withThrowingGetter(o: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(o)) if (k !== key) Object.defineProperty(copy, k, { value: o[k], enumerable: true, writable: true, configurable: true });
  Object.defineProperty(copy, key, {
    enumerable: true,
    configurable: true,
    get() {
      throw HOSTILE_THROW;
    },
  });
  return copy;
}

/**
 * A copy of `o` with an OWN `__proto__` key (as `JSON.parse('{"__proto__": ...}')`
 * makes, e.g. from a request body). A library that copies it with assignment
 * would pollute a prototype; the harness checks `Object.prototype` after each call.
 */
export function withProtoKey(o: Record<string, unknown>): Record<string, unknown> {
  const copy = JSON.parse('{"__proto__": {"polluted": "yes", "length": 1000000000}}') as Record<string, unknown>;
  for (const k of Object.keys(o)) Object.defineProperty(copy, k, { value: o[k], enumerable: true, writable: true, configurable: true });
  return copy;
}

/** `[[[...[0]...]]]`, `depth` levels deep (a stack overflow for any recursive walk). */
export function deepNest(depth: number): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** `{ a: { a: ... } }`, `depth` levels deep. */
export function deepObject(depth: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** A sparse array: `length` holes (no elements allocated). */
export function sparse(length: number): unknown[] {
  return new Array<unknown>(length);
}

/** Whole-value replacements, built fresh on each call. */
export const HOSTILE_VALUES: readonly (() => unknown)[] = [
  () => undefined,
  () => null,
  () => true,
  () => '',
  () => '1',
  () => 'NaN',
  () => [],
  () => ({}),
  () => [[]],
  () => sparse(5),
  () => sparse(500_000),
  () => ({ length: 1e9 }),
  () => ({ length: -1 }),
  () => ({ length: NaN, 0: 1 }),
  () => ({ length: 2, 0: 1, 1: 0 }),
  () => Float64Array.of(NaN, 1),
  () => Float64Array.of(1, 0, 0.5),
  () => Float32Array.of(3.4e38 * 10, 1),
  () => Int32Array.of(1, 0, -1),
  () => new DataView(new ArrayBuffer(16)),
  () => new Uint8Array(0),
  () => withThrowingGetter({ a: 1 }, 'a'),
  () => throwingProxy({}),
  () => throwingProxy([1, 2]),
  () => transparentProxy([1, 0]),
  () => transparentProxy({}),
  () => JSON.parse('{"__proto__": {"polluted": "yes"}}') as unknown,
  () => deepNest(2_000),
  () => deepObject(2_000),
  () => Symbol('hostile'),
  () => 10n,
  () => (): number => 1,
  () => new Date(NaN),
  () => new Map([[1, 2]]),
  () => Object.create(null) as unknown,
  () => 'a'.repeat(100_000),
  () => '\uD800',
  () => '\u0000',
  () => NaN,
  () => Infinity,
  () => -0,
  () => 1e308,
];

/** Array transforms: the same elements in another container, or a hostile array-like. */
const ARRAY_TRANSFORMS: readonly ((a: unknown[]) => unknown)[] = [
  (a) => Float64Array.from(a.map(Number)),
  (a) => Float32Array.from(a.map(Number)),
  (a) => Int32Array.from(a.map(Number)),
  (a) => new DataView(Float64Array.from(a.map(Number)).buffer),
  (a) => {
    const h = a.slice();
    delete h[0];
    return h; // a hole at index 0
  },
  (a) => {
    const h = a.slice();
    h.length = a.length + 3; // trailing holes
    return h;
  },
  (a) => {
    const h = a.slice();
    h.length = 500_000; // sparse, huge length
    return h;
  },
  (a) => transparentProxy(a.slice()),
  (a) => throwingProxy(a.slice()),
  (a) => {
    const o: Record<string, unknown> = { length: a.length };
    a.forEach((x, i) => (o[i] = x));
    return o; // an array-like that is not an array
  },
  (a) => ({ ...a, length: 1e9 }),
  () => [],
  (a) => [a],
  (a) => Array.from({ length: Math.min(1000, a.length * 50) }, (_, i) => a[i % Math.max(1, a.length)]),
  (a) => Object.freeze(a.slice()),
  (a) => Object.assign(a.slice(), { extra: NaN }),
  (a) => a.slice().reverse(),
  (a) => a.slice(1),
  (a) => [...a, ...a],
];

/** Object transforms. */
const OBJECT_TRANSFORMS: readonly ((o: Record<string, unknown>, pick: number) => unknown)[] = [
  (o) => withProtoKey(o),
  (o, pick) => {
    const keys = Object.keys(o);
    return keys.length ? withThrowingGetter(o, keys[pick % keys.length]!) : withThrowingGetter(o, 'x');
  },
  (o) => transparentProxy({ ...o }),
  (o) => throwingProxy({ ...o }),
  (o, pick) => {
    const c = { ...o };
    const keys = Object.keys(c);
    if (keys.length) delete c[keys[pick % keys.length]!];
    return c;
  },
  (o) => Object.assign(Object.create(null) as Record<string, unknown>, o),
  (o) => ({ ...o, unknownKey: 1 }),
  (o, pick) => {
    const c = { ...o };
    const keys = Object.keys(c);
    if (keys.length) c[keys[pick % keys.length]!] = undefined;
    return c;
  },
  (o) => Object.freeze({ ...o }),
  (o) => Object.create(o) as unknown, // every field inherited, none own
];

const NUMBER_TRANSFORMS: readonly ((x: number) => unknown)[] = [
  (x) => -x,
  (x) => x + 0.5,
  (x) => x * 1e308,
  (x) => x * 2 ** 53,
  (x) => x / 0,
  (x) => String(x),
  (x) => x + 2 ** 53,
  (x) => x - 1,
  (x) => x + 1,
  (x) => x * 1e-300,
  (x) => BigInt(Math.trunc(Number.isFinite(x) ? x : 0)),
];

const STRING_TRANSFORMS: readonly ((s: string) => unknown)[] = [
  () => '',
  () => ' ',
  () => 'a'.repeat(100_000),
  (s) => s.repeat(Math.max(1, Math.floor(20_000 / Math.max(1, s.length)))),
  (s) => s + '\uD800',
  (s) => s + '\u0000',
  () => '__proto__',
  () => 'constructor',
  () => '('.repeat(10_000),
  () => '{'.repeat(10_000),
  () => '"'.repeat(10_001),
  () => '\\'.repeat(10_001),
  () => '$('.repeat(5_000),
  () => '`'.repeat(10_001),
  () => "'".repeat(10_001),
  () => 'a '.repeat(50_000),
  () => '\n'.repeat(50_000),
  () => '--- a/x\n+++ b/x\n@@ -1,1000000000 +1,1000000000 @@\n',
  (s) => s.toUpperCase(),
  (s) => String(s.length),
];

const BOOLEAN_TRANSFORMS: readonly ((b: boolean) => unknown)[] = [(b) => (b ? 1 : 0), (b) => String(b), () => null, (b) => !b];

/** One mutation: which node (`at`, modulo the node count), which kind, which value (`pick`). */
export interface Mutation {
  at: number;
  kind: number;
  pick: number;
}

/** What a fuzz run does to the valid arguments: which valid tuple, then up to three mutations. */
export interface Instructions {
  tuple: number;
  mutations: Mutation[];
}

/** fast-check arbitrary of {@link Instructions}; shrinks towards the first tuple and fewer, earlier mutations. */
export const instructionsArb: fc.Arbitrary<Instructions> = fc.record({
  tuple: fc.nat({ max: 1000 }),
  mutations: fc.array(fc.record({ at: fc.nat({ max: 1_000_000 }), kind: fc.nat({ max: 1000 }), pick: fc.nat({ max: 1000 }) }), { maxLength: 3 }),
});

interface Slot {
  parent: Record<PropertyKey, unknown> | unknown[];
  key: PropertyKey;
  value: unknown;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const p = Object.getPrototypeOf(v) as unknown;
  return p === Object.prototype || p === null;
}

/** Every node of the argument tree (plain arrays and plain objects are descended, to depth 6, at most 400 nodes). */
function slots(args: unknown[]): Slot[] {
  const out: Slot[] = [];
  const walk = (parent: Slot['parent'], key: PropertyKey, value: unknown, depth: number): void => {
    if (out.length >= 400) return;
    out.push({ parent, key, value });
    if (depth >= 6) return;
    try {
      // (a hostile Proxy planted by an earlier mutation throws here: it is a leaf then)
      if (Array.isArray(value)) {
        for (let i = 0; i < Math.min(value.length, 400); i++) walk(value, i, value[i], depth + 1);
      } else if (isPlainObject(value)) for (const k of Object.keys(value)) walk(value, k, value[k], depth + 1);
    } catch {
      // leave it as a leaf
    }
  };
  args.forEach((a, i) => walk(args, i, a, 0));
  return out;
}

/** A readable, bounded description of a value (for counterexamples). */
export function describe(v: unknown, depth = 0): string {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return v.length > 40 ? `${JSON.stringify(v.slice(0, 20))}...(${v.length} chars)` : JSON.stringify(v);
  if (typeof v === 'symbol' || typeof v === 'function') return typeof v === 'symbol' ? v.toString() : 'function';
  if (v === null || v === undefined) return String(v);
  if (depth > 3) return '...';
  try {
    if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${(v as unknown as { length?: number }).length ?? (v as DataView).byteLength})`;
    if (Array.isArray(v)) {
      if (v.length > 8) return `Array(${v.length})[${[...v.slice(0, 4)].map((x) => describe(x, depth + 1)).join(', ')}, ...]`;
      const parts: string[] = [];
      for (let i = 0; i < v.length; i++) parts.push(i in v ? describe(v[i], depth + 1) : '<hole>');
      return `[${parts.join(', ')}]`;
    }
    const keys = Reflect.ownKeys(v as object).slice(0, 8);
    const parts = keys.map((k) => {
      const d = Object.getOwnPropertyDescriptor(v, k);
      return `${String(k)}: ${d && 'get' in d && d.get ? '<getter>' : describe(d?.value, depth + 1)}`;
    });
    return `{${parts.join(', ')}}`;
  } catch (e) {
    return e === HOSTILE_THROW ? '<throwing proxy>' : '<unprintable>';
  }
}

/** Applies the instructions to fresh valid argument tuples; returns the arguments and a description of what was changed. */
export function applyInstructions(tuples: unknown[][], ins: Instructions): { args: unknown[]; changes: string[] } {
  const args = tuples[ins.tuple % tuples.length]!.slice();
  const changes: string[] = [];
  for (const m of ins.mutations) {
    const all = slots(args);
    // A slot index past the nodes acts on the argument list itself (arity).
    if (m.at % (all.length + 1) === all.length) {
      const k = m.kind % 3;
      if (k === 0 && args.length > 0) {
        args.pop();
        changes.push(`dropped the last argument`);
      } else if (k === 1) {
        const v = HOSTILE_VALUES[m.pick % HOSTILE_VALUES.length]!();
        args.push(v);
        changes.push(`appended an argument ${describe(v)}`);
      } else {
        const v = HOSTILE_VALUES[m.pick % HOSTILE_VALUES.length]!();
        args.unshift(v);
        changes.push(`prepended an argument ${describe(v)}`);
      }
      continue;
    }
    const s = all[m.at % (all.length + 1)]!;
    const kind = m.kind % 4;
    let next: unknown;
    try {
      next = mutated(s.value, kind, m.pick);
    } catch {
      continue; // the node is a hostile Proxy from an earlier mutation: leave it
    }
    // Reflect.set: a frozen container (an earlier mutation) keeps its value instead of throwing here.
    if (!Reflect.set(s.parent, s.key, next)) continue;
    let where: string;
    try {
      where = pathOf(args, s);
    } catch {
      where = `args?.${String(s.key)}`;
    }
    changes.push(`${where} := ${describe(next)}`);
  }
  return { args, changes };
}

/** The replacement of one node. */
function mutated(value: unknown, kind: number, pick: number): unknown {
  if (kind === 0) return HOSTILE_NUMBERS[pick % HOSTILE_NUMBERS.length];
  if (kind === 1) return HOSTILE_VALUES[pick % HOSTILE_VALUES.length]!();
  if (typeof value === 'number') return NUMBER_TRANSFORMS[pick % NUMBER_TRANSFORMS.length]!(value);
  if (typeof value === 'string') return STRING_TRANSFORMS[pick % STRING_TRANSFORMS.length]!(value);
  if (typeof value === 'boolean') return BOOLEAN_TRANSFORMS[pick % BOOLEAN_TRANSFORMS.length]!(value);
  if (Array.isArray(value)) return ARRAY_TRANSFORMS[pick % ARRAY_TRANSFORMS.length]!(value);
  if (isPlainObject(value)) return OBJECT_TRANSFORMS[pick % OBJECT_TRANSFORMS.length]!(value, pick);
  return HOSTILE_VALUES[pick % HOSTILE_VALUES.length]!();
}

/** `args[1].groups[0][2]`-style path of a slot (found again by identity). */
function pathOf(args: unknown[], target: Slot): string {
  const find = (v: unknown, path: string, depth: number): string | null => {
    if (v === target.parent) return `${path}[${JSON.stringify(target.key)}]`.replace(/\["?(\d+)"?\]/g, '[$1]');
    if (depth > 6) return null;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const r = find(v[i], `${path}[${i}]`, depth + 1);
        if (r) return r;
      }
    } else if (isPlainObject(v)) {
      for (const k of Object.keys(v)) {
        let child: unknown;
        try {
          child = v[k];
        } catch {
          continue;
        }
        const r = find(child, `${path}.${k}`, depth + 1);
        if (r) return r;
      }
    }
    return null;
  };
  return find(args, 'args', 0) ?? `args?.${String(target.key)}`;
}
