const UNITS = { d: 86400000, h: 3600000, m: 60000, s: 1000, ms: 1 };

/**
 * Parse a duration like "500ms", "2s" or "1h30m" into milliseconds.
 * A bare integer is interpreted as milliseconds.
 *
 * @param {string} text
 * @returns {number}
 */
export function parseDuration(text) {
  if (typeof text !== 'string') throw new TypeError('duration must be a string');
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const match = /^(\d+)(ms|s|m|h|d)/.exec(trimmed);
  if (!match) throw new Error(`invalid duration: ${text}`);
  return Number(match[1]) * UNITS[match[2]];
}

/**
 * Format milliseconds as a compact duration string, e.g. 5400000 -> "1h30m".
 *
 * @param {number} ms
 * @returns {string}
 */
export function formatDuration(ms) {
  if (!Number.isInteger(ms) || ms < 0) throw new RangeError('ms must be a non-negative integer');
  if (ms === 0) return '0ms';
  let rest = ms;
  let out = '';
  for (const [unit, size] of Object.entries(UNITS)) {
    const count = Math.floor(rest / size);
    if (count > 0) {
      out += `${count}${unit}`;
      rest -= count * size;
    }
  }
  return out;
}
