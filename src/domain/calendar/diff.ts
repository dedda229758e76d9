// The writes that bring a feed's stored occurrences in line with a fresh parse, as set-based
// batches: stored rows are matched by (uid, recurrence_id) and compared by a content hash; what
// is gone is deleted by id, what changed is updated, what is new is inserted. Each batch of
// updates or inserts is one JSON array (the statement's jsonb_to_recordset input), serialized
// here so the thread that runs this (the parse worker) does that work, not the event loop.

import { createHash } from 'node:crypto';
import type { Occurrence } from './vevent.ts';

/** A stored occurrence as the diff needs it. */
export interface StoredKey {
  id: number;
  uid: string;
  recurrence_id: string;
  content_hash: string;
}

export type WriteBatch =
  | { kind: 'delete'; ids: number[] }
  | { kind: 'update' | 'insert'; json: string; rows: number };

export interface DiffCounts {
  added: number;
  updated: number;
  removed: number;
  total: number;
}

interface Row {
  id?: number;
  uid: string;
  recurrence_id: string;
  starts_at: string;
  ends_at: string;
  all_day: boolean;
  summary: string | null;
  location: string | null;
  description: string | null;
  status: string;
  content_hash: string;
}

export function contentHash(o: Occurrence): string {
  return createHash('sha256')
    .update(JSON.stringify([o.start, o.end, o.all_day, o.summary, o.location, o.description, o.status]))
    .digest('base64url');
}

const keyOf = (uid: string, recurrenceId: string) => `${uid}\u0000${recurrenceId}`;

/** An occurrence as its calendar_events row holds it (without its feed and institution). */
export function occurrenceRow(o: Occurrence): Row {
  return {
    uid: o.uid,
    recurrence_id: o.recurrence_id,
    starts_at: new Date(o.start).toISOString(),
    ends_at: new Date(o.end).toISOString(),
    all_day: o.all_day,
    summary: o.summary,
    location: o.location,
    description: o.description,
    status: o.status,
    content_hash: contentHash(o),
  };
}

export function createDiff(occurrences: Occurrence[]) {
  // The same key twice in one feed (a duplicated VEVENT): the last one wins.
  const wanted = new Map<string, Row>();
  for (const o of occurrences) wanted.set(keyOf(o.uid, o.recurrence_id), occurrenceRow(o));
  const seen = new Set<string>();
  const removed: number[] = [];
  const updates: Row[] = [];
  /** What is new, known once every stored page was seen (the first call of next). */
  let inserts: Row[] | undefined;
  const at = { removed: 0, updated: 0, inserted: 0 };

  return {
    total: () => wanted.size,
    /** One page of the stored occurrences (any number of pages, each row once, before next()). */
    stored(rows: StoredKey[]): void {
      for (const row of rows) {
        const key = keyOf(row.uid, row.recurrence_id);
        const w = wanted.get(key);
        if (!w) removed.push(row.id);
        else {
          seen.add(key);
          if (w.content_hash !== row.content_hash) updates.push({ id: row.id, ...w });
        }
      }
    },
    /**
     * The next write, at most `maxRows` rows (the caller sizes each statement): deletes first,
     * then updates, then inserts; undefined when every write was handed out.
     */
    next(maxRows: number): WriteBatch | undefined {
      if (!inserts) {
        inserts = [];
        for (const [key, row] of wanted) if (!seen.has(key)) inserts.push(row);
      }
      const n = Math.max(1, Math.floor(maxRows));
      if (at.removed < removed.length) {
        const ids = removed.slice(at.removed, at.removed + n);
        at.removed += ids.length;
        return { kind: 'delete', ids };
      }
      if (at.updated < updates.length) {
        const rows = updates.slice(at.updated, at.updated + n);
        at.updated += rows.length;
        return { kind: 'update', json: JSON.stringify(rows), rows: rows.length };
      }
      if (at.inserted < inserts.length) {
        const rows = inserts.slice(at.inserted, at.inserted + n);
        at.inserted += rows.length;
        return { kind: 'insert', json: JSON.stringify(rows), rows: rows.length };
      }
      return undefined;
    },
    counts(): DiffCounts {
      return {
        added: inserts?.length ?? 0,
        updated: updates.length,
        removed: removed.length,
        total: wanted.size,
      };
    },
  };
}

export type Diff = ReturnType<typeof createDiff>;
