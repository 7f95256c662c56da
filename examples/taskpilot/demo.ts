/**
 * The TaskPilot demo on the bundled repository (examples/taskpilot/README.md): starts
 * the scripted generator (one proposal set of proposals.json, its first proposal
 * answered twice so that one `duplicate` is discarded) and the scripted policy, then runs `frognano taskpilot` against them with the set's test command.
 *
 * ```sh
 * npm run demo:taskpilot          # both sets, into runs/taskpilot-demo/{python,js}.jsonl (+ .report.html)
 * npx tsx --conditions=@frognano/source examples/taskpilot/demo.ts [--set python|js|both] [--out FILE] [-- more taskpilot flags]
 * ```
 *
 * With `FROGNANO_LLM_BASE_URL` set, the policy is that server (a real checkpoint) instead of
 * the scripted one; with `FROGNANO_GENERATOR_BASE_URL` set, the generator likewise.
 */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProposalSet, startScriptedGenerator } from './scriptedGenerator.js';
import { startScriptedPolicy } from './scriptedPolicy.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

async function main(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const extra = dash >= 0 ? argv.slice(dash + 1) : [];
  const flag = (name: string, dflt: string): string => {
    const i = own.indexOf(`--${name}`);
    return i >= 0 && own[i + 1] !== undefined ? own[i + 1]! : dflt;
  };
  const setName = flag('set', 'both');
  const sets = setName === 'both' ? ['python', 'js'] : [setName];
  for (const name of sets) {
    const out = resolve(flag('out', join(root, 'runs', 'taskpilot-demo', `${name}.jsonl`)));
    const code = await runSet(name, out, extra);
    if (code !== 0) return code;
  }
  return 0;
}

/** One demo run: the set's scripted generator and the scripted policy (unless real servers are configured), then `frognano taskpilot`. */
async function runSet(setName: string, out: string, extra: string[]): Promise<number> {
  const file = join(here, 'proposals.json');
  const set = loadProposalSet(file, setName);
  const all = [...loadProposalSet(file, 'python').proposals, ...loadProposalSet(file, 'js').proposals];
  // the first proposal is answered twice: the demo's discarded file shows a `duplicate`
  const generator = process.env.FROGNANO_GENERATOR_BASE_URL ? null : await startScriptedGenerator({ proposals: [set.proposals[0]!, { repeat: 0 }, ...set.proposals.slice(1)] });
  const policy = process.env.FROGNANO_LLM_BASE_URL ? null : await startScriptedPolicy({ fixes: all });
  const args = [
    '--conditions=@frognano/source',
    join(root, 'src/cli/main.ts'),
    'taskpilot',
    '--repo', join(here, 'repo'),
    '--tests', set.tests.command,
    ...(set.tests.log ? ['--log', set.tests.log] : []),
    '--source', 'generator',
    '--candidates', String(set.proposals.length),
    '--rollouts', '8',
    '--band', '(0,1)',
    '--rounds', '3',
    '--seed', '1',
    '--out', out,
    ...extra,
  ];
  console.error(`== ${setName}: generator ${generator?.baseUrl ?? process.env.FROGNANO_GENERATOR_BASE_URL}, policy ${policy?.baseUrl ?? process.env.FROGNANO_LLM_BASE_URL}\nfrognano ${args.slice(2).map((a) => (/[\s()]/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const env = {
    ...process.env,
    ...(policy ? { FROGNANO_LLM_BASE_URL: policy.baseUrl, FROGNANO_LLM_MODEL: policy.model, FROGNANO_LLM_API_KEY: 'scripted' } : {}),
    ...(generator ? { FROGNANO_GENERATOR_BASE_URL: generator.baseUrl, FROGNANO_GENERATOR_MODEL: generator.model, FROGNANO_GENERATOR_API_KEY: 'scripted' } : {}),
  };
  const tsx = join(root, 'node_modules/.bin/tsx');
  const code = await new Promise<number>((ok) => spawn(tsx, args, { stdio: 'inherit', env, cwd: root }).on('exit', (c) => ok(c ?? 1)));
  await Promise.all([generator?.close(), policy?.close()]);
  return code;
}

main(process.argv.slice(2)).then(
  (c) => process.exit(c),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(2);
  },
);
