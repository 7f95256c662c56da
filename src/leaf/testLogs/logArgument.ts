import { z } from 'zod';
import { parseWith } from '../../errors/validate.js';

/**
 * The boundary check of every SPEC §14 log parser: `log` must be a string (any string,
 * the empty one included: a command that printed nothing has a log with no tests).
 * Throws `INVALID_TYPE` naming `fn` and `log` otherwise.
 */
export function logArgument(fn: string, log: unknown): string {
  return parseWith(fn, 'log', z.string(), log);
}
