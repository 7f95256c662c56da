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
  const part = /\s*(\d+)(ms|s|m|h|d)/y;
  let total = 0;
  let end = 0;
  let match;
  while ((match = part.exec(trimmed)) !== null) {
    total += Number(match[1]) * UNITS[match[2]];
    end = part.lastIndex;
  }
  if (end === 0 || end !== trimmed.length) throw new Error(`invalid duration: ${text}`);
  return total;
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
