/**
 * Errors and boundary validation: {@link FrognanoError} with its stable codes.
 * @module errors
 */
export { ErrorCode, FrognanoError, isFrognanoError } from './FrognanoError.js';
export type { ErrorDetails } from './FrognanoError.js';
