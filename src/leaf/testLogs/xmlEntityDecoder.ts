import type { X2jOptions } from 'fast-xml-parser';

/** XML 1.0's five predefined entities (§4.6). */
const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };
/** A predefined entity or a character reference (`&#10;`, `&#x1F600;`), XML 1.0 §4.1. */
const REFERENCE = /&(?:(lt|gt|amp|apos|quot)|#([0-9]+)|#x([0-9a-fA-F]+));/g;

/** The character a reference's code point stands for; `null` for one XML cannot hold (beyond U+10FFFF, a surrogate, NUL). */
function character(cp: number): string | null {
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
  return String.fromCodePoint(cp);
}

/**
 * Decodes exactly what XML 1.0 defines without a DTD: the five predefined entities and
 * decimal / hexadecimal character references, in one pass (so `&amp;lt;` is `&lt;`).
 * Anything else (an HTML-only name such as `&nbsp;`, a DTD's entity, a reference to a code
 * point XML cannot hold) stays as written.
 */
export function decodeXmlReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name !== undefined) return PREDEFINED[name]!;
    return character(dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16)) ?? whole;
  });
}

/**
 * The `entityDecoder` option of fast-xml-parser 5 that decodes attribute values as XML does
 * ({@link decodeXmlReferences}). Needed because the parser's default decoder leaves
 * character references undecoded (its `numericAllowed` follows the `htmlEntities` option,
 * false by default), and `htmlEntities: true` would also decode HTML names XML does not
 * define. DOCTYPE entities are ignored (a test report has none; none is expanded).
 */
export function xmlEntityDecoder(): NonNullable<X2jOptions['entityDecoder']> {
  return {
    setExternalEntities: () => undefined,
    addInputEntities: () => undefined,
    reset: () => undefined,
    setXmlVersion: () => undefined,
    decode: decodeXmlReferences,
  };
}
