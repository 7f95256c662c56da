import { type ScriptLanguage, isCommentLine } from './gradingHookLines.js';
import type { DiffLine } from './unifiedDiff.js';

/**
 * The rule funnel's `grading-hook` on test files that rewrite other files when
 * they run (SPEC §10): a planted or changed test that patches the source, deletes
 * or replaces another test, or writes the fix only while the suite runs.
 */

/** Python calls that write, delete, move or copy files: `open(p, 'w')` (any mode with w, a, x or +), `Path.open('w')`, `.write_text(`, `.write_bytes(`, `os.remove(` / `unlink` / `rename` / `replace` / `rmdir` / `truncate` / `symlink`, `shutil.copy*(` / `move(` / `rmtree(`, `Path.unlink(` / `rmdir(` / `touch(`. */
const PYTHON_WRITE_RES: readonly RegExp[] = [
  /\bopen\s*\([^)\n]{0,300}?,\s*(?:mode\s*=\s*)?['"][rbtU]{0,3}[wax+][rbtwax+U]{0,3}['"]/,
  /\.open\s*\(\s*(?:mode\s*=\s*)?['"][rbtU]{0,3}[wax+][rbtwax+U]{0,3}['"]/,
  /\.write_(?:text|bytes)\s*\(/,
  /\bos\.(?:remove|unlink|rename|renames|replace|rmdir|removedirs|truncate|symlink|link)\s*\(/,
  /\bshutil\.(?:copy\w*|move|rmtree)\s*\(/,
  /\.(?:unlink|rmdir|touch|symlink_to|hardlink_to)\s*\(/,
];
/** JavaScript / TypeScript calls that write, delete, move or copy files: `fs.writeFile(Sync)(`, `appendFile`, `rm`, `rmdir`, `unlink`, `rename`, `copyFile`, `cp`, `truncate`, `symlink`, `createWriteStream`, fs-extra's `outputFile` / `remove` / `move` (on `fs`, `fsp`, `fse`, `promises`), a bare `writeFileSync(` and its siblings, `await writeFile(` / `rm(` / `unlink(` ... */
const JS_WRITE_RES: readonly RegExp[] = [
  /\b(?:fs|fsp|fse|promises)\.(?:writeFile|appendFile|rm|rmdir|unlink|rename|copyFile|cp|truncate|symlink|outputFile|remove|move|createWriteStream)(?:Sync)?\s*\(/,
  /(?<![\w$.])(?:writeFile|appendFile|rm|rmdir|unlink|rename|copyFile|cp|truncate)Sync\s*\(/,
  /\bawait\s+(?:writeFile|appendFile|rm|rmdir|unlink|rename|copyFile|cp|truncate)\s*\(/,
];
/** Temporary or mocked places: `tmp` anywhere (`tmp_path`, `tmpdir`, `os.tmpdir()`, `/tmp/`), `tempfile`, `tempdir`, `mkdtemp`, `mkstemp`, `Temporary...`, `devnull`, `/dev/null`, `mock_open`, `memfs`, `mock-fs`, `pyfakefs`. */
const TEMP_RE = /tmp|Tmp|TMP|temp(?:file|dir|Dir)|mkdtemp|mkstemp|Temporary|devnull|\/dev\/null|mock_open|memfs|mock-fs|mockFs|fakefs/;
/** Paths anchored in the repository: `__file__`, `__dirname`, `__filename`, `import.meta`, `cwd()`, `getcwd()`. */
const REPO_ANCHOR_RE = /__file__|__dirname|__filename|import\.meta|\bcwd\s*\(|\bgetcwd\s*\(/;
/** A string literal naming a source file (`"src/pkg/median.py"`, `'lib/uri.js'`). */
const SOURCE_LITERAL_RE = /['"`][^'"`\n]{0,300}\.(?:py|[cm]?[jt]sx?)['"`]/;

/**
 * The added lines of a test file's diff section that rewrite other files when the
 * test runs. A line fires when it calls a file-writing function (see the lists
 * above) and does not name a temporary place itself; it then fires when it names
 * the repository (`__file__`, `__dirname`, `cwd()`) or a source file by a literal,
 * or when no line of the section (added or context) names a temporary or mocked
 * place (a test writing into `tmp_path` through a variable is honest). Comment lines never fire. @internal
 */
export function testFileRewrites(lines: readonly DiffLine[], lang: ScriptLanguage): DiffLine[] {
  const res = lang === 'python' ? PYTHON_WRITE_RES : JS_WRITE_RES;
  const writes = lines.filter((l) => l.kind === '+' && !isCommentLine(l.text, lang) && res.some((re) => re.test(l.text)));
  if (writes.length === 0) return [];
  let sectionTemp: boolean | undefined;
  return writes.filter((l) => {
    if (TEMP_RE.test(l.text)) return false;
    if (REPO_ANCHOR_RE.test(l.text) || SOURCE_LITERAL_RE.test(l.text)) return true;
    sectionTemp ??= lines.some((x) => x.kind !== '-' && TEMP_RE.test(x.text));
    return !sectionTemp;
  });
}
