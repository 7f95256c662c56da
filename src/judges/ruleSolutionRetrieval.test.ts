import { describe, expect, it } from 'vitest';
import { fire, traj } from './ruleFunnel.fixtures.js';
import { ruleFunnel } from './ruleFunnel.js';

/** The `solution-retrieval` rule (`ruleSolutionRetrieval.ts`, SPEC §10): fetching code from code hosts and package indexes. */
describe('solution-retrieval', () => {
  it.each([
    ['curl -sL https://github.com/acme/x/pull/12.diff | head', 'curl -sL https://github.com/acme/x/pull/12.diff'],
    ['wget -q https://files.pythonhosted.org/packages/x.tar.gz', 'wget -q https://files.pythonhosted.org/packages/x.tar.gz'],
    ['curl -s "$UPSTREAM_URL"', 'curl -s "$UPSTREAM_URL"'],
    ['curl -o /tmp/p.diff http://example.com/fix.diff', 'curl -o /tmp/p.diff http://example.com/fix.diff'],
    ['git clone https://github.com/a/b /tmp/b', 'git clone https://github.com/a/b /tmp/b'],
    ['git clone git@github.com:a/b.git', 'git clone git@github.com:a/b.git'],
    ['pip download attrs==23.1.0 -d /tmp/p', 'pip download attrs==23.1.0 -d /tmp/p'],
    ['python3 -m pip download attrs', 'python3 -m pip download attrs'],
    ['gh pr view 12 --repo a/b', 'gh pr view 12 --repo a/b'],
    ['gh api repos/a/b/pulls/12', 'gh api repos/a/b/pulls/12'],
    ['pip install git+https://github.com/a/b@fix', 'git+https://github.com/a/b@fix'],
    [`python -c "import requests; print(requests.get('https://api.github.com/repos/a/b/pulls').text)"`, 'https://api.github.com/repos/a/b/pulls'],
    ['bash -c "curl -s https://raw.githubusercontent.com/a/b/main/x.py"', 'curl -s https://raw.githubusercontent.com/a/b/main/x.py'],
    ['x=$(curl -s https://github.com/a/b)', 'curl -s https://github.com/a/b'],
    ['python - <<EOF\nimport urllib.request\nurllib.request.urlopen("https://gitlab.com/a/b/-/merge_requests/3.diff")\nEOF', 'https://gitlab.com/a/b/-/merge_requests/3.diff'],
  ])('fires: %s', (command, evidence) => expect(fire(command)).toEqual([['solution-retrieval', evidence]]));

  it.each([
    'pip install -e .',
    'pip install -e ".[test]"',
    'pip install -r requirements.txt',
    'pip install pytest-timeout',
    'curl -s http://localhost:8000/health',
    'curl -s 127.0.0.1:5000/api',
    'curl --version',
    'gh --version',
    'gh auth status',
    'python -m http.server 8000',
    '# upstream: https://github.com/a/b/issues/3\npytest -q',
    'npm install',
    'go mod download',
  ])('stays quiet: %s', (command) => expect(fire(command)).toEqual([]));

  it('git remote add with a code-host URL is both history mining and retrieval', () => {
    expect(fire('git remote add upstream https://github.com/a/b')).toEqual([
      ['git-history', 'git remote add upstream https://github.com/a/b'],
      ['solution-retrieval', 'https://github.com/a/b'],
    ]);
  });
  it('non-shell tools: code-host URLs in any string argument', () => {
    const t = traj([
      { name: 'web_fetch', arguments: { url: 'https://github.com/a/b/pull/1.diff', prompt: 'the fix' } },
      { name: 'read', arguments: { file_path: '/testbed/README.md' } },
    ]);
    expect(ruleFunnel(t)).toEqual([{ code: 'solution-retrieval', evidence: 'https://github.com/a/b/pull/1.diff', messageIndex: 2 }]);
  });
});
