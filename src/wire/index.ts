/**
 * Wire formats shared by the CLI and the service: how an answer is written so
 * that the trainers' Python code reads it as intended (SPEC §11).
 * @module wire
 */
export { stringifyWire, floatToJson, FLOAT_FIELDS, FLOAT_OBJECT_FIELDS } from './floatJson.js';
