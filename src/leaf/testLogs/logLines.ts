/** ANSI escape sequences (CSI: colours, cursor moves), as `--color=yes` or a TTY-less runner still prints them. */
const ANSI_CSI = /\x1b\[[0-?]*[ -/]*[@-~]/g;

/**
 * The lines of a text test log (SPEC §14), ready for the line-based parsers (pytest,
 * unittest): split at `\n`, a trailing `\r` dropped (CRLF logs), ANSI escape sequences
 * removed (a log captured with colours reads like one without). Nothing else is changed:
 * leading indentation is significant (unittest's subtests).
 */
export function logLines(log: string): string[] {
  return log.replace(ANSI_CSI, '').split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}
