// Words and dates of the student pages. Times are written in UTC on the server (institutions
// carry no time zone yet) inside <time datetime=...> elements; student.js rewrites them in the
// browser's own time zone when scripts run.
import type { Category, Status } from '../../domain/helpdesk/rules.ts';

const statusLabels: Record<Status, string> = {
  new: 'Sent',
  ack: 'Seen by staff',
  in_progress: 'Being worked on',
  resolved: 'Resolved',
};

const categoryLabels: Record<Category, string> = {
  wellbeing: 'Wellbeing and mental health',
  academic: 'Studies and assessments',
  financial: 'Money and fees',
  accommodation: 'Housing and accommodation',
  other: 'Something else',
};

const dateFormat = new Intl.DateTimeFormat('en-GB', {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const timeFormat = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });

const toDate = (value: Date | string) =>
  value instanceof Date ? value : new Date(value.length === 10 ? `${value}T00:00:00Z` : value);

export const viewHelpers = {
  statusLabel: (status: Status) => statusLabels[status] ?? status,
  categoryLabel: (category: Category | null) => (category ? categoryLabels[category] : 'Not given'),
  categoryOptions: Object.entries(categoryLabels).map(([value, label]) => ({ value, label })),
  /** A day, for example "Mon 7 Sep 2026". */
  day: (value: Date | string) => dateFormat.format(toDate(value)),
  /** A moment, for example "Mon 7 Sep 2026, 09:30 UTC". */
  moment: (value: Date | string) => {
    const date = toDate(value);
    return `${dateFormat.format(date)}, ${timeFormat.format(date)} UTC`;
  },
  iso: (value: Date | string) => toDate(value).toISOString(),
  /** When an event happens, in words: all-day events by their days, timed ones by their times. */
  eventWhen: (event: { start: string; end: string; all_day: boolean }) => {
    if (event.all_day) {
      const lastDay = new Date(Date.parse(`${event.end}T00:00:00Z`) - 86_400_000);
      const first = dateFormat.format(toDate(event.start));
      const last = dateFormat.format(lastDay);
      return first === last || lastDay.getTime() < toDate(event.start).getTime()
        ? `${first}, all day`
        : `${first} to ${last}`;
    }
    const start = toDate(event.start);
    const end = toDate(event.end);
    const sameDay = start.toISOString().slice(0, 10) === end.toISOString().slice(0, 10);
    return sameDay
      ? `${dateFormat.format(start)}, ${timeFormat.format(start)}–${timeFormat.format(end)} UTC`
      : `${dateFormat.format(start)}, ${timeFormat.format(start)} to ${dateFormat.format(end)}, ${timeFormat.format(end)} UTC`;
  },
  /** A phone number as a tel: link target (digits and a leading +). */
  telHref: (phone: string) => `tel:${phone.replace(/[^0-9+]/g, '')}`,
};
