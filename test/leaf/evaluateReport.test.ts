/**
 * The pure halves of `frognano evaluate`: SWE-bench's `tests_status` split by
 * SPEC §14's rules (swebench/harness/grading.py `get_eval_tests_report`), and
 * the predictions file in its three forms.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPredictions } from '../../src/leaf/predictions.js';
import { testsStatus } from '../../src/leaf/sweBenchReport.js';
import { scratchDir } from '../helpers/leafTask.js';

const EMPTY = { success: [], failure: [] };

describe('testsStatus (SWE-bench tests_status by SPEC §14)', () => {
  it('a fail-to-pass id succeeds when passed or xfail; failed, error, skipped and missing are failures', () => {
    const tests = ['passed', 'xfail', 'failed', 'error', 'skipped'].map((s) => ({ name: `f_${s}`, status: s }));
    const s = testsStatus({ failToPass: [...tests.map((t) => t.name), 'f_missing'] }, tests);
    expect(s).toEqual({ FAIL_TO_PASS: { success: ['f_passed', 'f_xfail'], failure: ['f_failed', 'f_error', 'f_skipped', 'f_missing'] }, PASS_TO_PASS: EMPTY, FAIL_TO_FAIL: EMPTY, PASS_TO_FAIL: EMPTY });
  });

  it('a skipped pass-to-pass id is a success (SWE-bench test_maintained); failed and missing are failures', () => {
    const tests = ['passed', 'skipped', 'failed'].map((s) => ({ name: `p_${s}`, status: s }));
    const s = testsStatus({ passToPass: [...tests.map((t) => t.name), 'p_missing'] }, tests);
    expect(s.PASS_TO_PASS).toEqual({ success: ['p_passed', 'p_skipped'], failure: ['p_failed', 'p_missing'] });
  });

  it('an xpass fail-to-pass or pass-to-pass id is a success in frognano (deviation: SWE-bench has no XPASS status, so a failure there)', () => {
    const s = testsStatus({ failToPass: ['a'], passToPass: ['b'] }, [{ name: 'a', status: 'xpass' }, { name: 'b', status: 'xpass' }]);
    expect([s.FAIL_TO_PASS, s.PASS_TO_PASS]).toEqual([{ success: ['a'], failure: [] }, { success: ['b'], failure: [] }]);
  });

  it('without lists every split is empty; an entry without a status (exit-code grading) is missing', () => {
    expect(testsStatus({}, [{ name: 'tests' }])).toEqual({ FAIL_TO_PASS: EMPTY, PASS_TO_PASS: EMPTY, FAIL_TO_FAIL: EMPTY, PASS_TO_FAIL: EMPTY });
    expect(testsStatus({ failToPass: ['tests'] }, [{ name: 'tests' }]).FAIL_TO_PASS).toEqual({ success: [], failure: ['tests'] });
  });
});

describe('loadPredictions', () => {
  const preds = [
    { instance_id: 'a', model_name_or_path: 'm', model_patch: 'diff' },
    { instance_id: 'b', model_name_or_path: 'm', model_patch: null, extra: 1 },
  ];
  const at = async (name: string, text: string): Promise<string> => {
    const f = join(await scratchDir('frognano-preds-'), name);
    await writeFile(f, text);
    return f;
  };

  it('reads a JSON array, JSONL and the dict form alike (unknown fields kept), each record located', async () => {
    const array = await loadPredictions(await at('p.json', JSON.stringify(preds)));
    expect(array).toEqual([{ where: 'record 1', prediction: preds[0] }, { where: 'record 2', prediction: preds[1] }]);
    const lines = await loadPredictions(await at('p.jsonl', `${JSON.stringify(preds[0])}\n\n${JSON.stringify(preds[1])}\n`));
    expect(lines).toEqual([{ where: 'line 1', prediction: preds[0] }, { where: 'line 3', prediction: preds[1] }]);
    const dict = await loadPredictions(await at('d.json', JSON.stringify({ a: preds[0], b: { model_patch: null, extra: 1, model_name_or_path: 'm' } })));
    expect(dict).toEqual([{ where: 'key "a"', prediction: preds[0] }, { where: 'key "b"', prediction: preds[1] }]);
  });

  it('a one-line JSONL file holding one prediction is that prediction, not a dict', async () => {
    expect(await loadPredictions(await at('one.jsonl', JSON.stringify(preds[0])))).toEqual([{ where: 'line 1', prediction: preds[0] }]);
  });

  it('errors name the file, the record and the field', async () => {
    const f = await at('bad.json', JSON.stringify([preds[0], { model_patch: 'x' }]));
    await expect(loadPredictions(f)).rejects.toThrow(`${f} record 2: instance_id`);
    const g = await at('bad2.json', JSON.stringify([7]));
    await expect(loadPredictions(g)).rejects.toThrow(`${g} record 1: a prediction must be a JSON object, got 7`);
    const e = await at('empty.json', '[]');
    await expect(loadPredictions(e)).rejects.toThrow(`${e} holds no prediction`);
  });
});
