/**
 * `frognano image import ARCHIVE` and `frognano image ls` (SPEC §14
 * "Environments"): import an image archive or OCI layout into the cache; list
 * the cache. Loaded only when the subcommand runs.
 * @module
 */
import { type CliIo, ExitCode, type FlagSpec, flagLines, parseFlags, UsageError } from '../../commands/index.js';
import { importImage, listImages } from '../../leaf/index.js';

/** The flags of `frognano image`. */
export const IMAGE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  cache: { type: 'string', value: 'DIR', description: 'the image cache (default $FROGNANO_IMAGE_CACHE, else /var/cache/frognano/images for root, else $XDG_CACHE_HOME/frognano/images, else ~/.cache/frognano/images)' },
  help: { type: 'boolean', description: 'this help' },
};

/** `frognano image --help`. */
export function imageHelp(): string {
  return [
    'frognano image: environment images (SPEC §14) unpacked once into a content-addressed cache',
    '',
    'Usage: frognano image import ARCHIVE [--cache DIR]',
    '       frognano image ls [--cache DIR]',
    'Calls: importImage, listImages',
    '',
    'import: ARCHIVE is a docker save archive, an OCI archive or an OCI image layout folder; layers are',
    'applied in order (whiteouts, hard links and symlinks kept; an entry leaving the root is refused).',
    'Prints two lines: the absolute path of the unpacked root filesystem, then sha256:<manifest digest>.',
    'ls: one line per cached image: digest, root filesystem, source, bytes (tab-separated).',
    '',
    'Flags:',
    ...flagLines(IMAGE_FLAGS),
    '',
    'Example:',
    '  $ frognano image import python-3.12.tar',
    '',
    'Exit codes:',
    '  0  imported (or listed)',
    '  1  the image cannot be imported (IMAGE_INVALID, naming the file, layer and entry)',
    '  2  bad usage',
    '',
  ].join('\n');
}

/** Splits the positionals (ARCHIVE) from the flags: a word that is not a flag nor a string flag's value. */
function splitPositionals(args: readonly string[]): { flags: string[]; positional: string[] } {
  const flags: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-') || a === '-') positional.push(a);
    else {
      flags.push(a);
      const spec = IMAGE_FLAGS[a.replace(/^--?/, '')];
      if (spec?.type === 'string' && !a.includes('=') && i + 1 < args.length) flags.push(args[++i]!);
    }
  }
  return { flags, positional };
}

/** Runs `frognano image <argv>`. */
export async function runImage(argv: readonly string[], io: CliIo): Promise<number> {
  const sub = argv[0];
  const { flags: rest, positional } = splitPositionals(sub === 'import' || sub === 'ls' ? argv.slice(1) : argv);
  const flags = parseFlags(rest, IMAGE_FLAGS);
  if (flags.help) {
    io.stdout.write(imageHelp());
    return ExitCode.OK;
  }
  const cacheDir = typeof flags.cache === 'string' ? flags.cache : undefined;
  if (sub === 'ls') {
    if (positional.length) throw new UsageError(`frognano image ls: unexpected argument ${JSON.stringify(positional[0])}`);
    return listCommand(cacheDir, io);
  }
  if (sub !== 'import') throw new UsageError('frognano image: the subcommand is import or ls (frognano image --help)');
  const archive = positional[0];
  if (archive === undefined || positional.length > 1) throw new UsageError('frognano image import: one ARCHIVE is required');
  try {
    const img = await importImage(archive, cacheDir ? { cacheDir } : {});
    io.stdout.write(`${img.root}\n${img.digest}\n`);
    return ExitCode.OK;
  } catch (e) {
    const code = (e as { code?: string }).code;
    io.stderr.write(`frognano image import: ${archive}: ${code ? `${code} ` : ''}${(e as Error).message}\n`);
    return 1;
  }
}

/** `frognano image ls`. */
async function listCommand(cacheDir: string | undefined, io: CliIo): Promise<number> {
  for (const img of await listImages(cacheDir ? { cacheDir } : {})) io.stdout.write(`${img.digest}\t${img.root}\t${img.source}\t${img.bytes}\n`);
  return ExitCode.OK;
}
