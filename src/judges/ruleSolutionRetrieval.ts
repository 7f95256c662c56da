import { gitSubcommandIndex } from './ruleGitHistory.js';
import { commandName, trimTrailing } from './shellWords.js';

/**
 * The `solution-retrieval` rule family of the rule funnel (SPEC §10; FrogNano
 * App. F): network access that can fetch a fix (fetchers, `git clone`, `pip
 * download`, `gh`, ...) and URLs of code hosts and package indexes.
 */

/** Hosts of code hosts and package indexes (a URL on them, or a subdomain, is solution retrieval). */
export const CODE_HOSTS: readonly string[] = [
  'github.com',
  'githubusercontent.com',
  'gitlab.com',
  'bitbucket.org',
  'codeberg.org',
  'sr.ht',
  'sourceforge.net',
  'googlesource.com',
  'gitee.com',
  'pagure.io',
  'gitea.com',
  'launchpad.net',
  'pypi.org',
  'pythonhosted.org',
  'pypi.python.org',
  'npmjs.org',
  'npmjs.com',
  'yarnpkg.com',
  'unpkg.com',
  'jsdelivr.net',
  'crates.io',
  'rubygems.org',
  'packagist.org',
  'nuget.org',
  'hex.pm',
  'proxy.golang.org',
  'pkg.go.dev',
  'maven.org',
  'anaconda.org',
];
const URL_RE = /\b(?:https?|ftp|git|ssh|svn|git\+https?|git\+ssh):\/\/(?:[^\s'"@/]+@)?([A-Za-z0-9.-]+)(?::\d+)?[^\s'"<>`)\]]*|\bgit@([A-Za-z0-9.-]+):[^\s'"<>`)\]]+/g;
const LOOPBACK = /^(?:[a-z+]+:\/\/)?(?:[^@/\s]*@)?(localhost|127(?:\.\d+){3}|0\.0\.0\.0|\[::1\])(?::\d+)?(?:\/|$)/i;
const FETCHERS = new Set(['curl', 'wget', 'http', 'https', 'httpie', 'aria2c', 'lynx', 'w3m', 'links', 'elinks']);
const FETCHER_VALUE_OPTS = new Set([
  '-o', '--output', '-H', '--header', '-d', '--data', '--data-raw', '--data-binary', '--data-urlencode', '-X', '--request',
  '-u', '--user', '-A', '--user-agent', '-e', '--referer', '-m', '--max-time', '--connect-timeout', '-w', '--write-out',
  '-T', '--upload-file', '-F', '--form', '-b', '--cookie', '-c', '--cookie-jar', '--retry', '-r', '--range', '--resolve',
  '--cacert', '--cert', '--key', '-K', '--config', '-E', '-O', '--output-document', '-P', '--directory-prefix',
  '-a', '--append-output', '-U', '-t', '--tries', '--timeout', '--method', '--body-data', '--post-data',
]);
const GH_HARMLESS = new Set(['auth', 'help', 'version', 'config', 'completion', 'alias', 'status']);

function isCodeHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return CODE_HOSTS.some((c) => h === c || h.endsWith(`.${c}`));
}

/** Code-host and package-index URLs in `text`: [url, index]. @internal */
export function codeHostUrls(text: string): [string, number][] {
  const out: [string, number][] = [];
  for (const m of text.matchAll(URL_RE)) {
    const host = m[1] ?? m[2] ?? '';
    if (isCodeHost(host)) out.push([trimTrailing(m[0], '.,;:'), m.index]); // not .replace(/[.,;:]+$/, ''): quadratic on a long run of dots
  }
  return out;
}

/** True when an invocation can fetch a fix from the network (see ruleFunnel). @internal */
export function fetchesCode(argv: readonly string[]): boolean {
  const name = commandName(argv[0]);
  if (FETCHERS.has(name)) {
    const targets: string[] = [];
    for (let j = 1; j < argv.length; j++) {
      const a = argv[j]!;
      if (a.startsWith('-') && a !== '-') {
        if (FETCHER_VALUE_OPTS.has(a)) j++;
        continue;
      }
      targets.push(a);
    }
    return targets.some((t) => !LOOPBACK.test(t));
  }
  const plain = argv.slice(1).filter((a) => !a.startsWith('-'));
  if (name === 'git') return argv[gitSubcommandIndex(argv)] === 'clone';
  if (name === 'pip' || name === 'pip3' || /^pip3\.\d+$/.test(name)) return plain[0] === 'download';
  if (/^python(\d(\.\d+)?)?$/.test(name)) {
    const m = argv.indexOf('-m');
    return m >= 0 && /^pip\d?$/.test(argv[m + 1] ?? '') && argv.slice(m + 2).find((a) => !a.startsWith('-')) === 'download';
  }
  if (name === 'gh' || name === 'hub') return plain.length > 0 && !GH_HARMLESS.has(plain[0]!);
  if (name === 'svn') return ['checkout', 'co', 'export', 'cat'].includes(plain[0] ?? '');
  if (name === 'hg') return ['clone', 'pull', 'in', 'incoming'].includes(plain[0] ?? '');
  return false;
}
