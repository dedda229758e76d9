// What the help desk's codes say in words, for people: statuses, priorities, where a student is
// in their six weeks, and each timeline entry as a sentence with who did it. The API keeps its
// codes (clients are written against them); only the pages speak in words.
import type { Category, Priority, Status } from '../../../domain/helpdesk/rules.ts';
import type { RequestStudent, TimelineItem } from '../../../domain/helpdesk/schemas.ts';

const statusWords: Record<Status, string> = {
  new: 'New',
  ack: 'Acknowledged',
  in_progress: 'In progress',
  resolved: 'Resolved',
};

// `high` is what staff call urgent (a support desk's usual word); students' own "urgent" is the
// crisis path, which staff see as Crisis.
const priorityWords: Record<Priority, string> = {
  low: 'Low',
  normal: 'Normal',
  high: 'Urgent',
  crisis: 'Crisis',
};

// The categories as the student chose them, in the words staff use.
const categoryWords: Record<Category, string> = {
  wellbeing: 'Wellbeing and mental health',
  academic: 'Studies and assessments',
  financial: 'Money and fees',
  accommodation: 'Housing and accommodation',
  other: 'Something else',
};

/** A category in words (`Money and fees`); none is "No category". */
export const categoryLabel = (category: string | null): string =>
  category === null ? 'No category' : (categoryWords[category as Category] ?? category);

/** A status as people say it (`In progress`); an unknown code is shown as it is. */
export const statusLabel = (status: string): string => statusWords[status as Status] ?? status;

export const priorityLabel = (priority: string): string => priorityWords[priority as Priority] ?? priority;

/** "Week 3 of 6", "Starts on 2026-09-14", ... */
export function sixWeeksLabel(six: RequestStudent['six_weeks']): string {
  switch (six.state) {
    case 'during':
      return `Week ${six.week} of 6`;
    case 'before':
      return `Starts on ${six.start}`;
    case 'after':
      return `Finished their six weeks (started ${six.start})`;
    default:
      return 'No start date yet';
  }
}

/** The student as one line: their name, or their email when the roster sent no name. */
export const studentName = (student: RequestStudent): string => student.name ?? student.email;

/** Help-desk actions a sync row may carry, as sentences. */
const integrationWords: Record<string, string> = {
  acknowledge: 'Acknowledged in the help desk',
  resolve: 'Resolved in the help desk',
  reopen: 'Reopened in the help desk',
  note: 'Note from the help desk',
};

/** What a timeline entry did, as a sentence ("Status changed from New to In progress"). */
export function timelineWhat(entry: TimelineItem): string {
  const from = entry.from_status ? statusLabel(entry.from_status) : undefined;
  const to = entry.to_status ? statusLabel(entry.to_status) : undefined;
  if (entry.kind === 'note')
    return entry.origin === 'integration' ? 'Note from the help desk' : 'Internal note added';
  if (entry.kind === 'reply')
    return entry.origin === 'integration'
      ? 'Reply to the student from the help desk'
      : 'Replied to the student';
  if (entry.kind === 'student_message') return 'The student wrote';
  if (entry.action.endsWith('_superseded')) {
    const action = entry.action.slice(0, -'_superseded'.length);
    return `${integrationWords[action] ?? action}: not applied, because a later staff change stands`;
  }
  switch (entry.action) {
    case 'created':
      return 'Raised';
    case 'status':
      return from && to ? `Status changed from ${from} to ${to}` : `Status set to ${to ?? 'unknown'}`;
    case 'assign':
      return `Assigned to ${entry.assigned_to ?? 'someone no longer listed'}`;
    case 'unassign':
      return 'Unassigned';
    case 'escalated':
      return 'Escalated: a crisis request nobody picked up in time';
    default:
      if (entry.origin === 'integration' && integrationWords[entry.action]) {
        return from && to && from !== to
          ? `${integrationWords[entry.action]} (${from} to ${to})`
          : integrationWords[entry.action];
      }
      return entry.action.replaceAll('_', ' ');
  }
}

/** Who did it: the person or actor recorded, the help desk for a sync without one; else unknown. */
export function timelineWho(entry: TimelineItem): string | undefined {
  if (entry.actor) return entry.actor;
  return entry.origin === 'integration' ? 'the help desk' : undefined;
}
