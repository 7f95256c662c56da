import type { TestResult } from './testResult.js';

/**
 * Collapses repeated test ids (a test run twice, reruns, a passed call followed by a teardown
 * error) into one result each: the LAST occurrence's status wins, as in SWE-bench's log
 * parsers (`swebench/harness/log_parsers`, which assign `test_status_map[name] = status` line
 * by line). The results keep the order in which each id first appeared.
 */
export function lastOccurrenceWins(results: readonly TestResult[]): TestResult[] {
  const byName = new Map<string, TestResult['status']>();
  for (const r of results) byName.set(r.name, r.status);
  return [...byName].map(([name, status]) => ({ name, status }));
}
