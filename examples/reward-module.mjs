/**
 * An example reward module for `frognano serve --reward-module examples/reward-module.mjs`.
 *
 * frognano calls the default export once per rollout with
 *   { protocol: 'openrlhf' | 'slime' | 'verl', prompt, response, label, query?, metadata?, dataSource? }
 * and expects (or awaits) either
 *   - a number: used as the reward as is (OpenRLHF `scores` / slime `raw` = the same number), or
 *   - an outcome { success, truncated, assistantTokens }: shaped by frognano's shapeReward with the
 *     service's --budget / --alpha / --truncated-reward / --floor (0 on failure, 0.5 on a truncated
 *     success, the log-length reward on a completed success), the raw outcome (1 / 0) reported next to it.
 * A function that throws answers 500 for that request only; the service keeps serving.
 *
 * This verifier grades a JavaScript function: the label is JSON
 *   {"entry":"add","tests":[{"args":[2,3],"expect":5}]}
 * the response holds the code in a ```js fenced block, and the tests run in a fresh vm context
 * with a time limit. A response without a closed code block counts as truncated (the model ran
 * out of tokens mid-answer). assistantTokens comes from metadata when the trainer sends it,
 * otherwise it is approximated as ceil(characters / 4): pass the real count for real training.
 */
import vm from 'node:vm';

const FENCE = /```(?:js|javascript)?\n([\s\S]*?)```/;

export default async function reward({ response, label, metadata }) {
  const spec = typeof label === 'string' ? JSON.parse(label) : label;
  if (!spec || typeof spec.entry !== 'string' || !Array.isArray(spec.tests)) {
    throw new Error('label must be JSON {"entry": string, "tests": [{"args": [...], "expect": ...}]}');
  }
  const assistantTokens = Number.isInteger(metadata?.assistantTokens) ? metadata.assistantTokens : Math.ceil(response.length / 4);
  const block = FENCE.exec(response);
  const truncated = block === null && response.includes('```');
  if (block === null) return { success: false, truncated, assistantTokens };

  let success = true;
  try {
    const context = vm.createContext({});
    vm.runInContext(`${block[1]}\n;globalThis.__entry = ${spec.entry};`, context, { timeout: 1000 });
    for (const t of spec.tests) {
      context.__args = t.args;
      const got = vm.runInContext('__entry(...__args)', context, { timeout: 1000 });
      if (JSON.stringify(got) !== JSON.stringify(t.expect)) {
        success = false;
        break;
      }
    }
  } catch {
    success = false; // the candidate threw, looped past the time limit, or did not define the entry
  }
  return { success, truncated, assistantTokens };
}
