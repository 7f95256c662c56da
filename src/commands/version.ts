import { readFileSync } from 'node:fs';

/** The package version, read from package.json next to `src/` or `dist/` (`unknown` when it cannot be read). */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
