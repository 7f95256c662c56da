/**
 * The stable error codes of frognano. A code never changes meaning between
 * releases: callers (and the CLI's exit-code mapping) switch on it.
 *
 * | code | meaning |
 * | --- | --- |
 * | `NON_FINITE` | NaN or ±Infinity where a finite number is required |
 * | `LENGTH_MISMATCH` | two inputs that must have the same length (or shape) do not |
 * | `EMPTY_INPUT` | an input that needs at least one element has none |
 * | `OUT_OF_RANGE` | a value or option lies outside its domain (negative budget, `alpha < 0`, `delta <= 0`, `lambdaMax < 1`, a probability outside [0, 1], ...) |
 * | `INVALID_TYPE` | a value has the wrong type or shape (string for a number, a missing field, an unknown enum member) |
 * | `BACKEND_UNAVAILABLE` | a requested tfjs backend or its npm package is not installed or cannot start |
 * | `INVALID_STATE` | a stateful helper or a checkpoint is used in a way its state does not allow |
 * | `MODEL_UNAVAILABLE` | a model endpoint gave no answer: not configured, network error, timeout or HTTP error after the retries (`src/llm`) |
 * | `CHECKPOINT_INVALID` | a training checkpoint cannot be used: unreadable, truncated, corrupt (checksum mismatch), of another format or version, or for another model |
 * | `SANDBOX_UNAVAILABLE` | the Leaf sandbox cannot run: bubblewrap (`bwrap`, Debian package `bubblewrap`) is missing or cannot create its namespaces; never silently replaced by an unsandboxed run |
 * | `MODEL_ANSWER_INVALID` | a model answered, but not with the required structure (unparseable JSON, a schema violation, a negative judgment without evidence) even after the retries; the answer never reaches the numbers |
 * | `BROWSER_UNAVAILABLE` | the web judge cannot drive a browser: Chromium (Debian package `chromium`, or `FROGNANO_CHROMIUM`) or the optional npm peer `playwright-core` is missing, or the browser cannot start |
 * | `APP_UNAVAILABLE` | the web judge's app cannot be served: its `--start` command exited or never answered on its port within the time limit |
 * | `DIFF_UNAVAILABLE` | a Leaf repository tree cannot be diffed or have its permissions restored: more entries than the limit, a walk past its time limit, paths too long in all, an unreadable entry, a tree changed during the walk (`src/leaf/repoDiff.ts`) |
 * | `IMAGE_INVALID` | an environment image cannot be imported (SPEC §14): not an image archive or layout, a malformed manifest, index or config, a digest mismatch, a truncated or corrupt layer, an entry whose path or link leaves the root (or goes through a symlink), beyond the size or entry limits (`src/leaf/image/`) |
 */
export const ErrorCode = {
  NON_FINITE: 'NON_FINITE',
  LENGTH_MISMATCH: 'LENGTH_MISMATCH',
  EMPTY_INPUT: 'EMPTY_INPUT',
  OUT_OF_RANGE: 'OUT_OF_RANGE',
  INVALID_TYPE: 'INVALID_TYPE',
  BACKEND_UNAVAILABLE: 'BACKEND_UNAVAILABLE',
  INVALID_STATE: 'INVALID_STATE',
  MODEL_UNAVAILABLE: 'MODEL_UNAVAILABLE',
  MODEL_ANSWER_INVALID: 'MODEL_ANSWER_INVALID',
  CHECKPOINT_INVALID: 'CHECKPOINT_INVALID',
  SANDBOX_UNAVAILABLE: 'SANDBOX_UNAVAILABLE',
  BROWSER_UNAVAILABLE: 'BROWSER_UNAVAILABLE',
  APP_UNAVAILABLE: 'APP_UNAVAILABLE',
  DIFF_UNAVAILABLE: 'DIFF_UNAVAILABLE',
  IMAGE_INVALID: 'IMAGE_INVALID',
} as const;

/** One of the stable {@link ErrorCode} strings. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Where the offending value sits, for programmatic use (the message says the same in words). */
export interface ErrorDetails {
  /** The public function that rejected its input, e.g. `groupAdvantages`. */
  fn?: string;
  /** The field path as written in the message, e.g. `groups[2][3]` or `opts.eps`. */
  field?: string;
  /** The index (or indices, outermost first) of the offending element, when it is an array element. */
  index?: number[];
  /** The underlying error (a parse error, a later failure), kept as the standard `Error.cause`. */
  cause?: unknown;
}

/**
 * The only error type frognano throws for bad input. `code` is stable (see
 * {@link ErrorCode}); the message names the function, the field and the index,
 * e.g. `groupAdvantages: groups[1][3] must be a finite number, got NaN`.
 */
export class FrognanoError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** The public function that threw. */
  readonly fn: string | undefined;
  /** The field path, e.g. `groups[1][3]`. */
  readonly field: string | undefined;
  /** Indices of the offending element, outermost first. */
  readonly index: number[] | undefined;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(details.fn ? `${details.fn}: ${message}` : message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'FrognanoError';
    this.code = code;
    this.fn = details.fn;
    this.field = details.field;
    this.index = details.index;
  }
}

/** True when `e` is a {@link FrognanoError} (optionally with the given code). */
export function isFrognanoError(e: unknown, code?: ErrorCode): e is FrognanoError {
  return e instanceof FrognanoError && (code === undefined || e.code === code);
}
