/** Runs `f` with SIGINT / SIGTERM turned into an abort; resolves to f's result and the signal received, if any. */
export async function withSignals<T>(f: (signal: AbortSignal) => Promise<T>): Promise<{ value: T; interrupted: NodeJS.Signals | null }> {
  const ctrl = new AbortController();
  let interrupted: NodeJS.Signals | null = null;
  const on = (sig: NodeJS.Signals): void => {
    interrupted ??= sig;
    ctrl.abort(new Error(`interrupted by ${sig}`));
  };
  const onInt = (): void => on('SIGINT');
  const onTerm = (): void => on('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    return { value: await f(ctrl.signal), interrupted };
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}
