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
import { type CalendarEventOut, eventOut } from './events.ts';
import { selectFeedsEventsInWindow, selectStudentFeedIds } from './sql/occurrences.ts';

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
  const feeds = await selectStudentFeedIds(q, student);
  if (feeds.length === 0) return [];
  const scanFrom = new Date(window.from.getTime() - LONGEST_EVENT_DAYS * 86_400_000);
  const rows = await selectFeedsEventsInWindow(q, student.institutionId, feeds, {
    from: window.from,
    to: window.to,
    scanFrom,
    limit: window.limit,
  });
  return rows.map(eventOut);
}
