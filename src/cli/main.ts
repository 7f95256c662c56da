#!/usr/bin/env node
/**
 * The `frognano` executable (package `bin`): `frognano <subcommand> [flags]`.
 * See `frognano --help` and docs/cli.md.
 * @module
 */
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
