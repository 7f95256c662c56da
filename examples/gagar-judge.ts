/**
 * GAGAR judge against any OpenAI-compatible endpoint (GAGAR §3.2, App. A):
 * one rollout group -> LLM judge (five 1-5 scores with evidence, tier, rank)
 * -> quality coefficients -> redistributed advantages, in one call.
 *
 *   FROGNANO_LLM_BASE_URL=http://127.0.0.1:8000/v1 FROGNANO_LLM_MODEL=Qwen/Qwen3-32B \
 *     npx tsx --conditions=@frognano/source examples/gagar-judge.ts [group.jsonl]
 *
 * Endpoint: FROGNANO_LLM_BASE_URL / FROGNANO_LLM_MODEL / FROGNANO_LLM_API_KEY,
 * falling back to OPENAI_BASE_URL / OPENAI_MODEL / OPENAI_API_KEY. Without an
 * endpoint it says so and exits 0. The group defaults to the bundled
 * `test/fixtures/trajectories/parse-duration.jsonl` (five rollouts of one task:
 * a clean fix, a fix that special-cases the test input and deletes a test, a
 * fix copied from future git history, two failures); pass another SPEC §9
 * JSONL file (one trajectory per line, one task) as the first argument.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isFrognanoError, judgeGroupWithGagar, parseTrajectory } from 'frognano';
import { openAiChatModel, resolveChatEndpoint } from 'frognano/llm';

const endpoint = resolveChatEndpoint();
if (!endpoint) {
  console.log(
    'gagar-judge: no model endpoint configured, nothing to do.\n' +
      'Set FROGNANO_LLM_BASE_URL (e.g. http://127.0.0.1:8000/v1) and FROGNANO_LLM_MODEL (and FROGNANO_LLM_API_KEY if the server needs one),\n' +
      'or OPENAI_BASE_URL / OPENAI_MODEL / OPENAI_API_KEY, then run this again.',
  );
  process.exit(0);
}

const file = process.argv[2] ?? fileURLToPath(new URL('../test/fixtures/trajectories/parse-duration.jsonl', import.meta.url));
const group = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l, i) => parseTrajectory(JSON.parse(l), `line ${i + 1}`));

const model = openAiChatModel({ concurrency: 2, timeoutMs: 300_000, maxRetries: 3 });
console.log(`gagar-judge: ${group.length} rollouts of task ${group[0]?.task.id}, judge ${endpoint.model} at ${endpoint.baseUrl}`);

try {
  const r = await judgeGroupWithGagar(group, { model, lambdaMax: 1.5, complete: { temperature: 0 } });
  const f = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? '-' : x.toFixed(d));
  console.log('\nid        reward  tier rank  W(1-5)  coef   win   advantage');
  group.forEach((t, i) => {
    const v = r.verdicts[i];
    console.log(
      `${t.id.padEnd(9)} ${f(r.rewards[i], 0).padStart(6)}  ${(v?.tier ?? '-').padEnd(4)} ${String(v?.rank ?? '-').padStart(4)}  ${f(v?.weightedScore, 2).padStart(6)}  ${f(r.coefficients[i], 2).padStart(5)}  ${f(r.audit?.winRates[i], 2).padStart(4)}  ${f(r.advantages[i]).padStart(9)}`,
    );
  });
  const d = r.redistribution;
  console.log(`\nlambda = ${f(d.lambda)}, applied ${f(d.lambdaUsed)}${d.capped ? ` (capped at lambdaMax; group re-centred by ${f(-d.shift)})` : ' (positive advantage mass conserved)'}`);
  for (const v of r.verdicts) {
    if (!v) continue;
    const quotes = Object.entries(v.evidence).flatMap(([k, cs]) => cs.map((c) => `  ${k} [${c.source}]: ${c.quote.slice(0, 100)}`));
    if (quotes.length) console.log(`\n${v.trajectoryId} (${v.tier}) evidence:\n${quotes.join('\n')}`);
  }
} catch (e) {
  if (isFrognanoError(e, 'MODEL_UNAVAILABLE') || isFrognanoError(e, 'MODEL_ANSWER_INVALID')) {
    console.error(`gagar-judge: ${e.code}: ${e.message}`);
    process.exit(1);
  }
  throw e;
}
