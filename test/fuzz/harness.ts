/**
 * The fuzz harness: calls one function with one argument tuple and says whether
 * the call kept the contract:
 * - it returned, within {@link CALL_LIMIT_MS} (1 s of CPU), an output whose numbers are all
 *   finite (null is allowed: it is a documented "no value", never a NaN in
 *   disguise) and that passes the spec's shape checks; or
 * - it threw a FrognanoError with one of the stable codes; or
 * - it let the caller's own exception (a hostile getter's) propagate unchanged.
 * Anything else (a TypeError, a RangeError, a NaN, a timeout, a polluted
 * prototype) is a violation.
 */
import { ErrorCode, FrognanoError } from '../../src/index.js';
import { HOSTILE_THROW } from './hostile.js';
import type { FuzzSpec, Outcome } from './specs.js';

/**
 * The most one call may take, in CPU milliseconds of this process (user +
 * system, `process.cpuUsage`): unlike wall time it does not grow when other
 * processes load the machine, so the bound is not flaky on a busy CI runner.
 */
export const CALL_LIMIT_MS = 1000;
/** A wall-clock backstop (a call that waits rather than computes), and the limit for a returned promise to settle. */
export const CALL_LIMIT_WALL_MS = 10_000;

const CODES = new Set<string>(Object.values(ErrorCode));

function isThenable(v: unknown): v is PromiseLike<unknown> {
  try {
    return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { then?: unknown }).then === 'function';
  } catch {
    return false;
  }
}

/** Calls `fn(...args)`, awaiting a returned promise for at most {@link CALL_LIMIT_WALL_MS}. */
export async function invoke(fn: (...a: unknown[]) => unknown, args: unknown[], spec: FuzzSpec): Promise<Outcome> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const elapsed = (): { ms: number; cpuMs: number } => {
    const c = process.cpuUsage(c0);
    return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
  };
  let value: unknown;
  try {
    value = fn(...args);
    if (isThenable(value)) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<typeof TIMEOUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMEOUT), CALL_LIMIT_WALL_MS);
      });
      try {
        value = await Promise.race([Promise.resolve(value), timeout]);
      } finally {
        clearTimeout(timer);
      }
      if (value === TIMEOUT) return { kind: 'timeout', ms: elapsed().ms, problem: `its promise did not settle within ${CALL_LIMIT_WALL_MS} ms` };
    }
  } catch (error) {
    const t = elapsed();
    return { kind: 'threw', error, ms: t.ms, problem: slow(t) ?? errorProblem(error) ?? pollution() ?? '' };
  }
  const t = elapsed();
  return { kind: 'returned', value, ms: t.ms, problem: slow(t) ?? outputProblem(value, args, spec) ?? pollution() ?? '' };
}
const TIMEOUT = Symbol('timeout');

function slow({ ms, cpuMs }: { ms: number; cpuMs: number }): string | null {
  if (cpuMs > CALL_LIMIT_MS) return `took ${Math.round(cpuMs)} ms of CPU (limit ${CALL_LIMIT_MS} ms)`;
  if (ms > CALL_LIMIT_WALL_MS) return `took ${Math.round(ms)} ms of wall time (limit ${CALL_LIMIT_WALL_MS} ms)`;
  return null;
}

function errorProblem(e: unknown): string | null {
  if (e === HOSTILE_THROW) return null;
  if (e instanceof FrognanoError) return CODES.has(e.code) ? null : `threw a FrognanoError with an unknown code ${String(e.code)}`;
  const name = e instanceof Error ? e.name : typeof e;
  const msg = e instanceof Error ? e.message : String(e);
  return `threw ${name}: ${msg.slice(0, 300)}`;
}

function outputProblem(value: unknown, args: unknown[], spec: FuzzSpec): string | null {
  const bad = nonFinite(value, spec.opaque);
  if (bad) return bad;
  try {
    return spec.check?.(value, args) ?? null;
  } catch (e) {
    return e === HOSTILE_THROW ? null : `output check failed: ${String(e)}`;
  }
}

/** Keys a polluted prototype would show. */
function pollution(): string | null {
  const o = {} as Record<string, unknown>;
  if ('polluted' in o || Object.keys(Object.prototype).length > 0) {
    for (const k of Object.keys(Object.prototype)) delete (Object.prototype as Record<string, unknown>)[k];
    return 'polluted Object.prototype';
  }
  if ('polluted' in []) return 'polluted Array.prototype';
  return null;
}

/**
 * The path of the first non-finite number in `value` (walked iteratively: no
 * recursion, at most 200 000 nodes; typed arrays element by element), or null.
 * Paths matching `opaque` (the caller's data passed back; `/^/` for the whole
 * output, root included) are not walked.
 */
export function nonFinite(value: unknown, opaque?: RegExp): string | null {
  const stack: [unknown, string][] = [[value, '']];
  const seen = new Set<object>();
  let budget = 200_000;
  while (stack.length > 0 && budget-- > 0) {
    const [v, path] = stack.pop()!;
    if (opaque && opaque.test(path)) continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `output${path} is ${v}`;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (seen.has(v)) continue;
    seen.add(v);
    try {
      if (v instanceof Float64Array || v instanceof Float32Array) {
        for (let i = 0; i < Math.min(v.length, 1_000_000); i++) if (!Number.isFinite(v[i])) return `output${path}[${i}] is ${v[i]}`;
        continue;
      }
      if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) continue;
      if (v instanceof Map || v instanceof Set) {
        let i = 0;
        for (const x of v.values()) stack.push([x, `${path}<${i++}>`]);
        continue;
      }
      for (const k of Object.keys(v)) stack.push([(v as Record<string, unknown>)[k], Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}`]);
    } catch (e) {
      if (e !== HOSTILE_THROW) return `output${path} cannot be read: ${String(e)}`;
    }
  }
  return null;
}
