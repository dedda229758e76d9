// Progress on stderr: a bar (cli-progress) with rows per second and time left on a terminal,
// one plain line per page when piped (logs and CI keep every line). The total is the file's
// size in bytes, known before reading, so "time left" needs no counting pass over the file.
import { createRequire } from 'node:module';
import type cliProgressModule from 'cli-progress';
import { thousands } from './numbers.ts';

// cli-progress is loaded only at a terminal: piped output (logs, CI, the SIS's nightly job)
// needs none of it in memory.
const requireModule = createRequire(import.meta.url);
const loadBar = (): typeof cliProgressModule => requireModule('cli-progress');

/** Where a push writes: stdout or stderr, or a test's buffer. */
export type Output = { write(text: string): unknown; isTTY?: boolean };

export interface Progress {
  /** A new file starts; `bytes` is its size when known. */
  start(label: string, bytes: number | undefined): void;
  /** Bytes read so far from the current file. */
  bytes(read: number): void;
  /** A page answered; `rows` is the running count of rows of the current file. */
  page(rows: number, pageNumber: number, resumed: boolean): void;
  /** A line that must be read (a retry, a notice), shown without breaking the bar. */
  note(message: string): void;
  stop(): void;
}

export function createProgress(stream: Output): Progress {
  return stream.isTTY ? barProgress(stream as NodeJS.WriteStream) : lineProgress(stream);
}

function barProgress(stream: NodeJS.WriteStream): Progress {
  const cliProgress = loadBar();
  let bar: cliProgressModule.SingleBar | undefined;
  let started = 0;
  let rows = 0;
  const speed = () => {
    const seconds = (Date.now() - started) / 1000;
    return seconds > 0 ? thousands(Math.round(rows / seconds)) : '0';
  };
  return {
    start(label, bytes) {
      bar?.stop();
      started = Date.now();
      rows = 0;
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${label} [{bar}] {percentage}% | {rows} rows | {speed} rows/s | {eta_formatted} left`,
          etaBuffer: 50,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(bytes ?? 1, 0, { rows: '0', speed: '0' });
    },
    bytes(read) {
      bar?.update(read, { rows: thousands(rows), speed: speed() });
    },
    page(total) {
      rows = total;
      bar?.update({ rows: thousands(rows), speed: speed() });
    },
    note(message) {
      stream.write(`\r\x1b[K${message}\n`);
      bar?.render();
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}

function lineProgress(stream: Output): Progress {
  let label = '';
  let size: number | undefined;
  let read = 0;
  let started = 0;
  return {
    start(name, bytes) {
      label = name;
      size = bytes;
      read = 0;
      started = Date.now();
    },
    bytes(n) {
      read = n;
    },
    page(rows, pageNumber, resumed) {
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? Math.round(rows / seconds) : 0;
      const share = size ? Math.min(1, read / size) : undefined;
      const left =
        share && share > 0 && share < 1 ? `, about ${Math.ceil((seconds / share) * (1 - share))} s left` : '';
      stream.write(
        `${label}: page ${pageNumber}${resumed ? ' (sent before, skipped)' : ''}, ${rows} rows, ${rate} rows/s` +
          `${share === undefined ? '' : `, ${Math.round(share * 100)}% of the file`}${left}\n`,
      );
    },
    note(message) {
      stream.write(`${message}\n`);
    },
    stop() {},
  };
}
