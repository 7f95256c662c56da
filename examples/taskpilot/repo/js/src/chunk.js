/** Splits xs into consecutive pieces of `size` items (the last may be shorter). */
export function chunk(xs, size) {
  const out = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}
