// The institution's event log as the admin API pages it: events after a sequence number, oldest
// first, and the sequence number to read on from (the last one read, or the one asked for when
// nothing is new). One indexed range read per page.
import type { Queryable } from '../../db/db.ts';
import { selectEvents } from './queries.ts';
import type { EventLogPage } from './schemas.ts';

export async function readEventLog(
  db: Queryable,
  institutionId: string,
  options: { afterSeq: number; limit: number },
): Promise<EventLogPage> {
  const items = await selectEvents(db, institutionId, options);
  const last = items.at(-1);
  return { items, next_after_seq: last ? Number(last.seq) : options.afterSeq };
}
