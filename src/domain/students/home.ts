// The student home page's data: who the student is, where they are in their six weeks
// (six-weeks.ts) and the calendar events of those weeks that are meant for them
// (calendar/for-students.ts), grouped by week.
//
// Cost: three queries (the student with their cohort and institution, ./queries.ts; the feeds
// meant for them; their occurrences in the window).
// Events are read only while the six weeks are ahead or under way.
import type { Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { dateIn } from '../../lib/time-zones.ts';
import type { CalendarEventOut } from '../calendar/events.ts';
import { eventsForStudent } from '../calendar/for-students.ts';
import type { Deps } from '../deps.ts';
import type { StudentProfile, StudentRef } from './model.ts';
import { selectStudentProfile } from './queries.ts';
import { eventWindow, type SixWeeks, sixWeeks, startDateFor, weekOf, weekRanges } from './six-weeks.ts';

/** Most events the home page lists; the rest are counted, not shown. */
export const MAX_HOME_EVENTS = 500;

export interface HomeWeek {
  week: number;
  from: string;
  to: string;
  current: boolean;
  events: CalendarEventOut[];
}

export interface StudentHome {
  student: StudentProfile;
  sixWeeks: SixWeeks;
  weeks: HomeWeek[];
  /** Whether more events fell in the window than MAX_HOME_EVENTS. */
  truncated: boolean;
}

/** The student behind a session, with what the home page needs; 404 if they have departed. */
export async function studentProfile(q: Queryable, student: StudentRef): Promise<StudentProfile> {
  const profile = await selectStudentProfile(q, student);
  if (!profile) throw new ApiError('student_not_found', { detail: 'your student record was not found' });
  return profile;
}

/** The home page of the signed-in student, as of now in their institution's time zone. */
export async function studentHome(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  student: StudentRef,
): Promise<StudentHome> {
  const now = clock.now();
  const profile = await studentProfile(db, student);
  const start = startDateFor(profile.clock, profile.cohort_start_date, profile.start_date);
  const where = sixWeeks(profile.clock, start, dateIn(now, profile.time_zone));
  if (where.state === 'no_start' || where.state === 'after') {
    return { student: profile, sixWeeks: where, weeks: [], truncated: false };
  }
  const window = eventWindow(where.start, profile.time_zone);
  const events = await eventsForStudent(
    db,
    { institutionId: student.institutionId, programId: profile.program_id, campusId: profile.campus_id },
    { ...window, limit: MAX_HOME_EVENTS + 1 },
  );
  const weeks: HomeWeek[] = weekRanges(where.start).map((range) => ({
    ...range,
    current: where.state === 'during' && where.week === range.week,
    events: [],
  }));
  for (const event of events.slice(0, MAX_HOME_EVENTS)) {
    weeks[weekOf(event, where.start, profile.time_zone)].events.push(event);
  }
  return { student: profile, sixWeeks: where, weeks, truncated: events.length > MAX_HOME_EVENTS };
}
