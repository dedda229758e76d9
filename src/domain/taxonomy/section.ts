// What every section of the enrolments feed shares: its name and report, the context a
// section handler works in, and the helpers that parse rows and drop repeated keys.
import type { Queryable } from '../../db/db.ts';
import { capitalised } from '../../lib/field-words.ts';
import { batchLimits } from '../feeds/batch-limits.ts';
import type { EnrolmentKeys, Parsed, RowProblem } from './rows.ts';
import type { SectionWrites } from './sql/write.ts';

/** Every section of the endpoint, in the order a real run applies them. */
export const sectionOrder = ['programs', 'campuses', 'terms', 'units', 'enrolments'] as const;
export type SectionName = (typeof sectionOrder)[number];

/** Rows per section and request; more gives 413 batch_too_large (spec 4.2 rule 1). */
export const sectionLimits: Record<SectionName, number> = batchLimits.enrolments;

export interface SectionReport {
  /** Rows sent in the section. */
  received: number;
  /** Rows that created a record (dry run: would create). */
  created: number;
  /** Rows that changed a stored record (dry run: would update). */
  updated: number;
  /** Rows identical to what is stored (nothing written). */
  unchanged: number;
  /** Rows rejected; each has at least one entry in `errors`. */
  rejected: number;
}

export interface RowError extends Partial<EnrolmentKeys> {
  section: SectionName;
  /** Zero-based position of the row in its section's array. */
  row: number;
  code: string;
  message: string;
  field?: string;
}

export interface PushResult {
  institution: string;
  dry_run: boolean;
  sections: Partial<Record<SectionName, SectionReport>>;
  errors: RowError[];
}

export type PushBody = Partial<Record<SectionName, unknown[]>>;

export interface SectionContext {
  q: Queryable;
  institutionId: string;
  now: Date;
  dryRun: boolean;
  report: SectionReport;
  /** Rejects a row; `keys` (enrolments: the keys it was sent with) go beside `row` in its error. */
  reject(row: number, problem: RowProblem, keys?: EnrolmentKeys): void;
}

export type SectionHandler = (context: SectionContext, rows: unknown[]) => Promise<void>;

/** Parses every row, reporting the malformed ones; returns the good ones with their positions. */
function parseAll<T>(
  context: SectionContext,
  rows: unknown[],
  parse: (row: unknown) => Parsed<T>,
): Good<T>[] {
  const good: Good<T>[] = [];
  rows.forEach((row, i) => {
    const parsed = parse(row);
    if (parsed.ok) good.push({ i, value: parsed.value });
    else context.reject(i, parsed.problem);
  });
  return good;
}

/**
 * Keeps the first row of each key and rejects the later ones with duplicate_key. `key` is the
 * database's own lower() of the key, so duplicates are judged exactly as the unique index does.
 */
function firstOfEachKey<T extends { i: number; key: string }>(
  context: SectionContext,
  matched: T[],
  describeKey: (row: T) => string,
): T[] {
  const seen = new Map<string, number>();
  const kept: T[] = [];
  for (const row of [...matched].sort((a, b) => a.i - b.i)) {
    const first = seen.get(row.key);
    if (first !== undefined) {
      context.reject(row.i, {
        code: 'duplicate_key',
        message: capitalised(
          `${describeKey(row)} appears already at row ${first} of this section; only the first is applied`,
        ),
      });
      continue;
    }
    seen.set(row.key, row.i);
    kept.push(row);
  }
  return kept;
}

/** undefined means "keep what is stored". */
export const keep = <T>(incoming: T | undefined, stored: T): T =>
  incoming === undefined ? stored : incoming;

/** What a section writes: rows to create, and changed rows with their id. */
export interface Changes {
  creates: Record<string, unknown>[];
  updates: Record<string, unknown>[];
}

const noChanges = (): Changes => ({ creates: [], updates: [] });

/**
 * Files one kept row and counts it: a create when nothing is stored (`create` is written), an
 * update when a field of `update` differs from the stored row's field of the same name (the
 * fields are written with the stored id), otherwise unchanged.
 */
export function sortRow(
  context: SectionContext,
  changes: Changes,
  stored: { id: string | null },
  create: Record<string, unknown>,
  update: Record<string, unknown> = create,
): void {
  const current = stored as Record<string, unknown>;
  if (!stored.id) {
    changes.creates.push(create);
    context.report.created++;
  } else if (Object.keys(update).some((field) => update[field] !== current[field])) {
    changes.updates.push({ id: stored.id, ...update });
    context.report.updated++;
  } else {
    context.report.unchanged++;
  }
}

/** A parsed row with its position in the section. */
export interface Good<T> {
  i: number;
  value: T;
}

/** A stored row matched to a sent one: its position, its key (the database's lower()) and its id. */
export interface Keyed {
  i: number;
  key: string;
  id: string | null;
}

/**
 * Each parsed row's position and its `key` field (its code, or a campus's name): what a section
 * keyed by one field sends its match statement.
 */
export function keysOf<K extends string>(
  parsed: Good<Record<K, string>>[],
  key: K,
): ({ i: number } & Record<K, string>)[] {
  return parsed.map(({ i, value }) => ({ i, [key]: value[key] }) as { i: number } & Record<K, string>);
}

/**
 * What a section is, the rest being the same for every section: how a row parses, how the rows
 * match what is stored (one statement), how a kept row is filed (sortRow) or rejected, and its
 * two writes. `resolve`, when given, turns the matched rows into keyed ones before repeated keys
 * are dropped, rejecting those whose references match nothing (enrolments).
 */
export interface SectionSpec<Row, Matched extends { i: number }, Kept extends Keyed = Matched & Keyed> {
  parse(row: unknown): Parsed<Row>;
  match(q: Queryable, institutionId: string, parsed: Good<Row>[]): Promise<Matched[]>;
  resolve?(context: SectionContext, matched: Matched[], byIndex: Map<number, Row>): Kept[];
  /** The key a repeated row repeats, in words: "the program code X". */
  describeKey(incoming: Row): string;
  /** Files a kept row with sortRow, or rejects it. */
  decide(context: SectionContext, changes: Changes, stored: Kept, incoming: Row): void;
  write: SectionWrites;
}

/**
 * A section's handler: parse every row, match them in one statement, keep the first of each key,
 * file each kept row, then write the creates and the updates (one statement each; nothing on a
 * dry run). A fixed number of statements however many rows.
 */
export function sectionHandler<Row, Matched extends { i: number }, Kept extends Keyed = Matched & Keyed>(
  spec: SectionSpec<Row, Matched, Kept>,
): SectionHandler {
  return async (context, rows) => {
    const { q, institutionId } = context;
    const parsed = parseAll<Row>(context, rows, spec.parse);
    if (parsed.length === 0) return;
    const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
    const matched = await spec.match(q, institutionId, parsed);
    const keyed = spec.resolve ? spec.resolve(context, matched, byIndex) : (matched as unknown as Kept[]);
    const kept = firstOfEachKey(context, keyed, (row) => spec.describeKey(byIndex.get(row.i)!));
    const changes = noChanges();
    for (const stored of kept) spec.decide(context, changes, stored, byIndex.get(stored.i)!);
    if (context.dryRun) return;
    for (const [write, batch] of [
      [spec.write.insert, changes.creates],
      [spec.write.update, changes.updates],
    ] as const) {
      if (batch.length > 0) await write(q, institutionId, batch, context.now);
    }
  };
}
