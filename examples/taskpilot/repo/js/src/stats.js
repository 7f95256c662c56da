/** The middle value of a list of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The arithmetic mean of a list of numbers. */
export function mean(xs) {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
