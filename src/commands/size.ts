/**
 * Byte sizes as people write them on a command line (`--max-body 256MiB`).
 * @module
 */

const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/**
 * Parses a byte size: a whole number of bytes (`134217728`), or a number with a
 * unit: `K`/`KiB` (1024), `M`/`MiB`, `G`/`GiB`, `KB`/`MB`/`GB` (powers of 1000),
 * case-insensitive (`256MiB`, `1.5G`, `64 mb`). The result is rounded down to
 * whole bytes. Returns undefined for anything else (a negative number, a hex
 * literal, an unknown unit, a size beyond `Number.MAX_SAFE_INTEGER`).
 */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = UNITS[m[2]!.toLowerCase()];
  if (unit === undefined) return undefined;
  const bytes = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A byte count for messages: `128 MiB`, `1.5 GiB`, `512 bytes`. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (n >= size) return `${Math.round((n / size) * 100) / 100} ${unit}`;
  }
  return `${n} bytes`;
}
