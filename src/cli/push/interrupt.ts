// Ctrl-C during a push (the ssp process only): the first SIGINT runs the push's clean stop
// (progress bar stopped, so the cursor shows and lines wrap again; errors CSV flushed; how to
// resume said) and exits 130; a second one exits at once. Without this, Node's default
// handler killed the process with the bar's escape codes still in force.
import { EXIT } from '../exit-codes.ts';

/** The terminal's cursor shown and auto-wrap on, whatever the bar left. */
const RESTORE_TERMINAL = '\x1b[?25h\x1b[?7h';

export function interruptOnSigint(stop: () => Promise<void>): () => void {
  let stopping = false;
  const handler = () => {
    if (stopping) process.exit(EXIT.interrupted);
    stopping = true;
    // Whatever happens below, the process ends: a flush that hangs must not keep it alive.
    setTimeout(() => process.exit(EXIT.interrupted), 3000).unref();
    stop()
      .catch(() => undefined)
      .finally(() => {
        if (process.stderr.isTTY) process.stderr.write(RESTORE_TERMINAL);
        process.exit(EXIT.interrupted);
      });
  };
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}
