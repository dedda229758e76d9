// Words and dates of the student pages. Times are written on the server in the institution's
// time zone, with the zone's short name, inside <time datetime=...> elements, and stay so: the
// week headings count the institution's days, so an event shown in the device's own zone could
// fall under the wrong week's heading (a student abroad would read a Monday 01:00 event as Sunday).
import type { Category, Priority, Status } from '../../../domain/helpdesk/rules.ts';

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

/** Priorities in the student's words: the crisis path is "Urgent help" wherever they meet it. */
const priorityLabels: Record<Priority, string> = {
  low: 'Low',
  normal: 'Normal',
  high: 'Urgent',
  crisis: 'Urgent help',
};

const toDate = (value: Date | string) =>
  value instanceof Date ? value : new Date(value.length === 10 ? `${value}T00:00:00Z` : value);

/** Dates and times written in one time zone, with the zone's short name after each time. */
function zoneFormats(timeZone: string) {
  const date = new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone,
  });
  const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone });
  const zoneName = new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'short' });
  // A calendar date (YYYY-MM-DD, all-day events, week ranges) is a day, not an instant: it is
  // written as it is, whatever the zone.
  const day = new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const zone = (at: Date) =>
    zoneName.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
  const clock = (at: Date) => `${time.format(at)} ${zone(at)}`;
  const sameDay = (a: Date, b: Date) => date.format(a) === date.format(b);
  return { date, time, day, zone, clock, sameDay };
}

const helpersByZone = new Map<string, ReturnType<typeof buildHelpers>>();

function buildHelpers(timeZone: string) {
  const f = zoneFormats(timeZone);
  return {
    statusLabel: (status: Status) => statusLabels[status] ?? status,
    categoryLabel: (category: Category | null) => (category ? categoryLabels[category] : 'Not given'),
    categoryOptions: Object.entries(categoryLabels).map(([value, label]) => ({ value, label })),
    priorityLabel: (priority: Priority) => priorityLabels[priority] ?? priority,
    /**
     * What a request is called in lists: its category, or for a request without one (a crisis
     * request may be sent without) what kind of request it is, never "Something else".
     */
    requestTitle: (request: { category: Category | null; priority: Priority }) =>
      request.category
        ? categoryLabels[request.category]
        : request.priority === 'crisis'
          ? 'Urgent request'
          : 'Help request',
    /** A calendar day, for example "Mon 7 Sep 2026". */
    day: (value: Date | string) =>
      typeof value === 'string' && value.length === 10
        ? f.day.format(toDate(value))
        : f.date.format(toDate(value)),
    /** A moment, for example "Mon 7 Sep 2026, 09:30 AEST". */
    moment: (value: Date | string) => {
      const at = toDate(value);
      return `${f.date.format(at)}, ${f.clock(at)}`;
    },
    iso: (value: Date | string) => toDate(value).toISOString(),
    /** When an event happens, in words: all-day events by their days, timed ones by their times. */
    eventWhen: (event: { start: string; end: string; all_day: boolean }) => {
      if (event.all_day) {
        const lastDay = new Date(Date.parse(`${event.end}T00:00:00Z`) - 86_400_000);
        const first = f.day.format(toDate(event.start));
        const last = f.day.format(lastDay);
        return first === last || lastDay.getTime() < toDate(event.start).getTime()
          ? `${first}, all day`
          : `${first} to ${last}`;
      }
      const start = toDate(event.start);
      const end = toDate(event.end);
      return f.sameDay(start, end)
        ? `${f.date.format(start)}, ${f.time.format(start)}–${f.clock(end)}`
        : `${f.date.format(start)}, ${f.clock(start)} to ${f.date.format(end)}, ${f.clock(end)}`;
    },
    /** A phone number as a tel: link target (digits and a leading +). */
    telHref: (phone: string) => `tel:${phone.replace(/[^0-9+]/g, '')}`,
  };
}

/** What the student templates use to write labels, dates and times, in the institution's zone. */
export function studentViewHelpers(timeZone: string) {
  let helpers = helpersByZone.get(timeZone);
  if (!helpers) {
    helpers = buildHelpers(timeZone);
    helpersByZone.set(timeZone, helpers);
  }
  return helpers;
}
