import { expect } from 'vitest';
import { FrognanoError, type ErrorCode } from '../../src/errors/FrognanoError.js';

/**
 * Asserts that `f` throws a FrognanoError with `code`, and that its message
 * contains every string of `mentions` (field names, indices).
 */
export function expectFrognanoError(f: () => unknown, code: ErrorCode, ...mentions: string[]): FrognanoError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected a FrognanoError to be thrown').toBeInstanceOf(FrognanoError);
  const err = caught as FrognanoError;
  expect(err.code).toBe(code);
  for (const m of mentions) expect(err.message).toContain(m);
  return err;
}

/** Async version of {@link expectFrognanoError}. */
export async function expectFrognanoErrorAsync(
  f: () => Promise<unknown>,
  code: ErrorCode,
  ...mentions: string[]
): Promise<FrognanoError> {
  let caught: unknown;
  try {
    await f();
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected a FrognanoError to be thrown').toBeInstanceOf(FrognanoError);
  const err = caught as FrognanoError;
  expect(err.code).toBe(code);
  for (const m of mentions) expect(err.message).toContain(m);
  return err;
}
