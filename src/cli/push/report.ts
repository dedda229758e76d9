// What a push did, gathered page by page and printed at the end as plain-text tables; and the
// errors CSV, written as rejected rows arrive (streamed, so a file of 500,000 bad rows costs
// no memory), each naming the original file and line.
import fs from 'node:fs';
import type { RowOrigin, Section } from './model.ts';
import { thousands } from './numbers.ts';
import { deferredLine } from './would-create.ts';

export type { RowOrigin };
export { thousands };

export interface SectionTotals {
  label: string;
  file: string;
  received: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
  /** Pages skipped because an interrupted run had already sent them. */
  resumedPages: number;
  pages: number;
  /** Dry run: rejected rows that only refer to rows an earlier section would create. */
  deferred: number;
  /** The runs the service recorded, one a page. */
  runIds: string[];
}

interface ValueRows {
  value: string;
  count: number;
  where: string[];
}

/** The errors CSV's columns: where, what, then whom (docs/ssp-push.md). */
export const ERRORS_HEADER = 'file,line,section,column,code,message,email,student_id_ext,student';

const KEEP_PLACES = 5;
const KEEP_LIST = 50;

export class PushReport {
  readonly dryRun: boolean;
  readonly sections: SectionTotals[] = [];
  readonly unknownPrograms = new Map<string, ValueRows>();
  readonly unknownCampuses = new Map<string, ValueRows>();
  readonly duplicates = new Map<string, ValueRows>();
  readonly badDates: { where: string; value: string }[] = [];
  badDateCount = 0;
  readonly fullSyncs: Record<string, unknown>[] = [];
  readonly notes: string[] = [];
  errorCount = 0;
  /** Dry run: row errors explained by would-create.ts, by section and code. */
  readonly deferredErrors = new Map<string, { section: Section; code: string; count: number }>();
  private errors: fs.WriteStream | undefined;
  private readonly errorsPath: string;
  private readonly appendErrors: boolean;

  constructor(options: { dryRun: boolean; errorsPath: string; appendErrors: boolean }) {
    this.dryRun = options.dryRun;
    this.errorsPath = options.errorsPath;
    this.appendErrors = options.appendErrors;
  }

  section(label: string, file: string): SectionTotals {
    const totals: SectionTotals = {
      label,
      file,
      received: 0,
      created: 0,
      updated: 0,
      unchanged: 0,
      rejected: 0,
      resumedPages: 0,
      pages: 0,
      deferred: 0,
      runIds: [],
    };
    this.sections.push(totals);
    return totals;
  }

  /**
   * One rejected row (or one of its problems) into the errors CSV, with the keys and the name of
   * the student the row names, when it was sent (`row`, as the request carried it).
   */
  rowError(
    origin: RowOrigin,
    section: string,
    code: string,
    message: string,
    column = '',
    row?: Record<string, unknown>,
  ): void {
    this.errorCount++;
    if (!this.errors) {
      const exists = this.appendErrors && fs.existsSync(this.errorsPath);
      this.errors = fs.createWriteStream(this.errorsPath, { flags: this.appendErrors ? 'a' : 'w' });
      if (!exists) this.errors.write(`${ERRORS_HEADER}\n`);
    }
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    const name = [text(row?.first_name), text(row?.last_name)].filter(Boolean).join(' ');
    this.errors.write(
      `${[
        origin.file,
        String(origin.line),
        section,
        column,
        code,
        message,
        text(row?.email),
        text(row?.student_id_ext),
        name,
      ]
        .map(csvCell)
        .join(',')}\n`,
    );
  }

  /** A row error of a dry run that refers to a row an earlier section would create. */
  deferred(section: Section, code: string): void {
    const k = `${section}:${code}`;
    const entry = this.deferredErrors.get(k) ?? { section, code, count: 0 };
    entry.count++;
    this.deferredErrors.set(k, entry);
  }

  /** Lines for the rows a dry run rejected only because the push would create what they name. */
  deferredLines(): string[] {
    return [...this.deferredErrors.values()].map((d) => deferredLine(d.section, d.code, d.count));
  }

  addValue(into: Map<string, ValueRows>, value: string, places: RowOrigin[]): void {
    const key = value.toLowerCase();
    let entry = into.get(key);
    if (!entry) {
      if (into.size >= KEEP_LIST * 20) return;
      entry = { value, count: 0, where: [] };
      into.set(key, entry);
    }
    entry.count += places.length;
    for (const p of places) if (entry.where.length < KEEP_PLACES) entry.where.push(`${p.file}:${p.line}`);
  }

  badDate(origin: RowOrigin, value: string): void {
    this.badDateCount++;
    if (this.badDates.length < KEEP_LIST)
      this.badDates.push({ where: `${origin.file}:${origin.line}`, value });
  }

  async close(): Promise<void> {
    const stream = this.errors;
    if (!stream) return;
    await new Promise<void>((resolve, reject) =>
      stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  }

  get errorsFile(): string | undefined {
    return this.errors ? this.errorsPath : undefined;
  }

  /** The readable report. */
  render(): string {
    const out: string[] = [];
    const would = this.dryRun;
    out.push(
      table(
        [
          'file',
          'feed',
          'rows',
          would ? 'would create' : 'created',
          would ? 'would update' : 'updated',
          'unchanged',
          'rejected',
          'pages',
        ],
        this.sections.map((s) => [
          s.file,
          s.label,
          s.received,
          s.created,
          s.updated,
          s.unchanged,
          s.deferred
            ? `${(s.rejected - s.deferred).toLocaleString('en')} (+${s.deferred.toLocaleString('en')} below)`
            : s.rejected,
          s.resumedPages ? `${s.pages} (${s.resumedPages} sent before)` : s.pages,
        ]),
      ),
    );
    const valueTable = (title: string, map: Map<string, ValueRows>) => {
      if (!map.size) return;
      const rows = [...map.values()].sort((a, b) => b.count - a.count);
      out.push(
        `\n${title} (${rows.length}):`,
        table(
          ['value', 'rows', 'first places'],
          rows.slice(0, KEEP_LIST).map((r) => [r.value, r.count, r.where.join(' ')]),
        ),
      );
      if (rows.length > KEEP_LIST) out.push(`  … and ${rows.length - KEEP_LIST} more`);
    };
    valueTable(
      'Unknown program codes (these rows import with the program unset or kept)',
      this.unknownPrograms,
    );
    valueTable(
      'Unknown campus values (these rows import with the campus unset or kept)',
      this.unknownCampuses,
    );
    valueTable('Duplicates within a page (the first row counts, the others are rejected)', this.duplicates);
    if (this.badDateCount) {
      out.push(
        `\nBad dates (ignored, the row still imports) (${this.badDateCount}):`,
        table(
          ['place', 'value'],
          this.badDates.map((d) => [d.where, d.value]),
        ),
      );
      if (this.badDateCount > this.badDates.length)
        out.push(`  … and ${this.badDateCount - this.badDates.length} more`);
    }
    for (const sync of this.fullSyncs) {
      out.push(
        `\nFull sync ${sync.sync_id}: ${
          sync.status === 'held'
            ? `HELD: ${sync.departures} departures exceed the threshold (${sync.threshold} of ${sync.cohort_size}); an admin confirms or discards them (ssp full-syncs)`
            : would
              ? `would depart ${sync.would_depart ?? 0} of ${sync.cohort_size ?? '?'}${sync.would_hold ? ' (would be held for an admin)' : ''}`
              : `${sync.status}, ${sync.departures ?? 0} departed of ${sync.cohort_size ?? '?'}`
        }`,
      );
    }
    for (const line of this.deferredLines()) out.push(`\n${line}`);
    for (const note of this.notes) out.push(`\n${note}`);
    if (this.errorCount) {
      out.push(
        `\n${this.errorCount} row problems written to ${this.errorsPath} (${ERRORS_HEADER.replaceAll(',', ', ')})`,
      );
    }
    return `${out.join('\n')}\n`;
  }
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * 12345 as "12,345", as toLocaleString('en') writes it, without it: the first number formatted
 * through Intl maps ICU's data into the process, some 7 MB of peak RSS (measured with Node 24).
 */

export function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? thousands(c) : c)))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const isNumber = (i: number) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number');
  const line = (r: (string | number)[]) =>
    `  ${r
      .map((c, i) => (isNumber(i) ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i])))
      .join('  ')
      .trimEnd()}`;
  return [line(cells[0]), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n');
}
