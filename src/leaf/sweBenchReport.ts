/**
 * SWE-bench's per-instance evaluation report, as `get_eval_report` and
 * `get_eval_tests_report` build it (SWE-bench/SWE-bench,
 * `swebench/harness/grading.py`): the keys `patch_is_None`, `patch_exists`,
 * `patch_successfully_applied`, `resolved`, and `tests_status` with
 * `FAIL_TO_PASS` / `PASS_TO_PASS` / `FAIL_TO_FAIL` / `PASS_TO_FAIL`, each
 * `{ success, failure }`. As there, `tests_status` is present only when the
 * tests ran (the patch existed and applied).
 * @module
 */
import { FAIL_TO_PASS_OK, PASS_TO_PASS_OK, type TestStatus } from './testLogs/index.js';

/** The success / failure split of one list of test ids. */
export interface TestsSplit {
  success: string[];
  failure: string[];
}

/** `tests_status` of a SWE-bench report. */
export interface TestsStatus {
  FAIL_TO_PASS: TestsSplit;
  PASS_TO_PASS: TestsSplit;
  /** Always empty: frognano tasks carry no fail-to-fail list (SWE-bench fills it only with `calculate_to_fail`). */
  FAIL_TO_FAIL: TestsSplit;
  /** Always empty, as in SWE-bench without `calculate_to_fail`. */
  PASS_TO_FAIL: TestsSplit;
}

/** One instance's entry of `report.json`. */
export interface InstanceReport {
  /** The prediction's `model_patch` was null. */
  patch_is_None: boolean;
  /** The prediction carried a patch (not null, not empty). */
  patch_exists: boolean;
  /** The patch applied to a fresh copy of the repository. */
  patch_successfully_applied: boolean;
  /** Every fail-to-pass and pass-to-pass test passed by its rule (the grading's `success`). */
  resolved: boolean;
  /** Per list, which ids passed by the list's rule; absent when the tests did not run. */
  tests_status?: TestsStatus;
}

/** The whole `report.json`: one entry per evaluated instance. */
export type EvaluationReport = Record<string, InstanceReport>;

/** The ids of `ids` split by `ok` over their statuses (an id the log does not show is `missing`: a failure). */
function split(ids: readonly string[], status: ReadonlyMap<string, string>, ok: readonly TestStatus[]): TestsSplit {
  const out: TestsSplit = { success: [], failure: [] };
  for (const id of ids) (ok.includes((status.get(id) ?? 'missing') as TestStatus) ? out.success : out.failure).push(id);
  return out;
}

/**
 * `tests_status` from the task's lists and the graded tests' statuses, by SPEC
 * §14's rules: a fail-to-pass id succeeds when `passed`, `xfail` or `xpass`; a
 * pass-to-pass id also when `skipped`. SWE-bench's `test_passed` /
 * `test_maintained` are the same but for `xpass` (absent from its status map,
 * so a failure there; a success in frognano).
 */
export function testsStatus(lists: { failToPass?: readonly string[]; passToPass?: readonly string[] }, tests: readonly { name: string; status?: string }[]): TestsStatus {
  const status = new Map(tests.map((t) => [t.name, t.status ?? 'missing']));
  return {
    FAIL_TO_PASS: split(lists.failToPass ?? [], status, FAIL_TO_PASS_OK),
    PASS_TO_PASS: split(lists.passToPass ?? [], status, PASS_TO_PASS_OK),
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
}
