/**
 * Convert arbitrary text into a lowercase, URL-friendly slug.
 *
 * @param {string} input text to convert
 * @param {{ separator?: string }} [options]
 * @returns {string}
 */
export function slugify(input, { separator = '-' } = {}) {
  if (input === null || input === undefined) return '';
  const slug = String(input)
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9\s-]/g, '')
    .trim()
    .replace(/[\s-]+/g, separator);
  return slug;
}
