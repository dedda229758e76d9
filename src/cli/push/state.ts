// The resume state: a small JSON file recording, for each stream of pages (a cohort's roster,
// a section of the enrolments feed), the pages the service has answered, with a hash of each
// page's rows and the page's counts. A resumed push re-reads the files, skips a page only when
// its rows hash to the recorded value (so a changed file can never be half old, half new), and
// sends the rest. The full sync's sync_id lives here too, so a resumed full sync continues the
// same sync. The file is replaced atomically after every page and removed when the push ends.
import { createHash } from 'node:crypto';
import fs from 'node:fs';

export interface PageRecord {
  n: number;
  rows: number;
  hash: string;
  counts: Record<string, number>;
  /** The run the service recorded for the page (absent in states written before it was kept). */
  runId?: string;
}

export interface PushStateData {
  version: 1;
  /** Hash of the command, target and input files: a state file of another push is not resumed. */
  key: string;
  started_at: string;
  sync_ids: Record<string, string>;
  streams: Record<string, PageRecord[]>;
}

export class PushState {
  readonly path: string | undefined;
  readonly resumed: boolean;
  private data: PushStateData;
  private constructor(path: string | undefined, data: PushStateData, resumed: boolean) {
    this.path = path;
    this.data = data;
    this.resumed = resumed;
  }

  /** Loads the state for `key` from `path`, or starts a new one (a dry run passes no path). */
  static open(path: string | undefined, key: string, options: { restart?: boolean } = {}): PushState {
    const fresh: PushStateData = {
      version: 1,
      key,
      started_at: new Date().toISOString(),
      sync_ids: {},
      streams: {},
    };
    if (!path || options.restart || !fs.existsSync(path)) return new PushState(path, fresh, false);
    let stored: PushStateData;
    try {
      stored = JSON.parse(fs.readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Error(
        `state file ${path} is unreadable (${(error as Error).message}); pass --restart to start over`,
      );
    }
    if (stored?.version !== 1 || stored.key !== key) return new PushState(path, fresh, false);
    return new PushState(path, stored, true);
  }

  /** The page recorded as done at position n of a stream, if any. */
  donePage(stream: string, n: number): PageRecord | undefined {
    return this.data.streams[stream]?.find((p) => p.n === n);
  }

  pagesDone(): number {
    return Object.values(this.data.streams).reduce((sum, pages) => sum + pages.length, 0);
  }

  syncId(stream: string, make: () => string): string {
    this.data.sync_ids[stream] ??= make();
    this.save();
    return this.data.sync_ids[stream];
  }

  recordPage(stream: string, page: PageRecord): void {
    this.data.streams[stream] ??= [];
    this.data.streams[stream].push(page);
    this.save();
  }

  remove(): void {
    if (this.path) fs.rmSync(this.path, { force: true });
  }

  private save(): void {
    if (!this.path) return;
    const tmp = `${this.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(this.data)}\n`);
    fs.renameSync(tmp, this.path);
  }
}

export function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/** A key naming one push: the same command on the same unchanged files gives the same key. */
export function pushKey(parts: Record<string, unknown>, files: string[]): string {
  const stats = files.map((file) => {
    try {
      const s = fs.statSync(file);
      return [file, s.size, s.mtimeMs];
    } catch {
      return [file];
    }
  });
  return hashOf({ parts, stats });
}
