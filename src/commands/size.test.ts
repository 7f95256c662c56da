import { describe, expect, it } from 'vitest';
import { formatBytes, parseSize } from './size.js';

describe('parseSize', () => {
  it('bytes and binary / decimal units, case-insensitive', () => {
    expect(parseSize('134217728')).toBe(134217728);
    expect(parseSize('128MiB')).toBe(128 * 1024 ** 2);
    expect(parseSize('128m')).toBe(128 * 1024 ** 2);
    expect(parseSize('64 MB')).toBe(64_000_000);
    expect(parseSize('1.5G')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('2kib')).toBe(2048);
    expect(parseSize('10b')).toBe(10);
    expect(parseSize('1.5')).toBe(1);
  });

  it('refuses what is not a size', () => {
    for (const bad of ['', '-1', '0x10', '12 parsecs', 'MiB', '1e9', 'NaN', '99999999999G']) expect(parseSize(bad)).toBeUndefined();
  });
});

describe('formatBytes', () => {
  it('picks the largest binary unit', () => {
    expect(formatBytes(128 * 1024 ** 2)).toBe('128 MiB');
    expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.5 GiB');
    expect(formatBytes(4096)).toBe('4 KiB');
    expect(formatBytes(512)).toBe('512 bytes');
  });
});
