import type { Writable } from 'node:stream';

/** Log levels, least to most severe. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Extra fields of a log line (request id, path, status, duration, error, ...). */
export type LogFields = Record<string, unknown>;

/**
 * A structured logger: one JSON object per line,
 * `{"time":"2025-01-01T00:00:00.000Z","level":"info","msg":"request",...fields}`.
 */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** A {@link Logger} writing JSON lines to `stream`, dropping lines below `level`. */
export function createLogger(stream: Writable, level: LogLevel = 'info'): Logger {
  const min = RANK[level];
  const log = (lvl: LogLevel, msg: string, fields?: LogFields): void => {
    if (RANK[lvl] < min) return;
    let line: string;
    try {
      line = JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields });
    } catch {
      line = JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, note: 'fields not serialisable' });
    }
    stream.write(line + '\n');
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
  };
}
