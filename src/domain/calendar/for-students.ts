// The occurrences one student sees in a window: every feed of their institution meant for
// everyone (no audience tags), and the feeds whose audience tags include the tag of the
// student's program or campus. Same output as the admin listing (events.ts).
//
// Two queries. First the feeds meant for the student (the student's tag ids come from
// audience_tags by kind + source_id); then their occurrences in the window. Passing the feed ids
// as values lets the planner pick per feed: the (institution_id, starts_at) window index when the
// feeds hold most of the institution's occurrences, the (feed_id, starts_at) index when they hold
// few (a student whose program has a small feed beside another program's large one; measured in
// bench/student-home.ts: 24 ms scanning 60,000 rows in one query, 0.05 ms this way). A window's
// lower bound cannot use an index on the start alone (an event that began earlier may still
// run), so the scan starts LONGEST_EVENT_DAYS before the window: an occurrence longer than that
// which began before the window is left out.
import type { Queryable } from '../../db/db.ts';
import type { CalendarEventOut } from './events.ts';

/** Occurrences longer than this that began before the window are not shown in it. */
export const LONGEST_EVENT_DAYS = 90;

export interface StudentAudience {
  institutionId: string;
  programId: string | null;
  campusId: string | null;
}

export async function eventsForStudent(
  q: Queryable,
  student: StudentAudience,
  window: { from: Date; to: Date; limit: number },
): Promise<CalendarEventOut[]> {
  const { rows: feeds } = await q.query<{ id: string }>(
    `WITH tags AS (
       SELECT coalesce(array_agg(id), '{}') AS ids FROM audience_tags
       WHERE institution_id = $1
         AND ((kind = 'program' AND source_id = $2::uuid) OR (kind = 'campus' AND source_id = $3::uuid))
     )
     SELECT f.id FROM calendar_feeds f
     WHERE f.institution_id = $1 AND (f.audience_tag_ids = '{}' OR f.audience_tag_ids && (SELECT ids FROM tags))`,
    [student.institutionId, student.programId, student.campusId],
  );
  if (feeds.length === 0) return [];
  const scanFrom = new Date(window.from.getTime() - LONGEST_EVENT_DAYS * 86_400_000);
  const { rows } = await q.query<{
    feed_id: string;
    uid: string;
    recurrence_id: string;
    starts_at: Date;
    ends_at: Date;
    all_day: boolean;
    summary: string | null;
    location: string | null;
    description: string | null;
    status: CalendarEventOut['status'];
  }>(
    `SELECT e.feed_id, e.uid, e.recurrence_id, e.starts_at, e.ends_at, e.all_day, e.summary, e.location,
            e.description, e.status
     FROM calendar_events e
     WHERE e.feed_id = ANY ($2::uuid[]) AND e.institution_id = $1 AND e.starts_at >= $5 AND e.starts_at < $4
       AND (e.ends_at > $3 OR e.starts_at >= $3)
     ORDER BY e.starts_at, e.uid, e.recurrence_id, e.feed_id
     LIMIT $6`,
    [student.institutionId, feeds.map((f) => f.id), window.from, window.to, scanFrom, window.limit],
  );
  return rows.map((r) => ({
    feed_id: r.feed_id,
    uid: r.uid,
    recurrence_id: r.recurrence_id === '' ? null : r.recurrence_id,
    start: r.all_day ? r.starts_at.toISOString().slice(0, 10) : r.starts_at.toISOString(),
    end: r.all_day ? r.ends_at.toISOString().slice(0, 10) : r.ends_at.toISOString(),
    all_day: r.all_day,
    summary: r.summary,
    location: r.location,
    description: r.description,
    status: r.status,
  }));
}
