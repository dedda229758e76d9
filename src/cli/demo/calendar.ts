// The demo's term of events: Semester 1, 2027's key dates as an iCalendar feed, served on
// loopback by `ssp demo --serve` (the demo's service may fetch loopback addresses) and added
// to the institution as a calendar feed, so the student app shows a real feed's events. The
// same loopback server receives the demo webhook endpoint's deliveries (and accepts them).
import http from 'node:http';

const EVENTS: { uid: string; summary: string; start: string; end?: string; description?: string }[] = [
  { uid: 'o-week', summary: 'Orientation week', start: '20270215', end: '20270220' },
  { uid: 'teaching-starts', summary: 'Teaching starts', start: '20270222' },
  {
    uid: 'census',
    summary: 'Census date: last day to withdraw without fees',
    start: '20270331',
    description: 'Withdraw from a unit by today and it is not charged or recorded.',
  },
  { uid: 'break', summary: 'Mid-semester break', start: '20270405', end: '20270410' },
  { uid: 'wellbeing', summary: 'Wellbeing week: drop-in sessions at every campus', start: '20270503' },
  { uid: 'swotvac', summary: 'Study week (no classes)', start: '20270531', end: '20270605' },
  { uid: 'exams', summary: 'Examination period', start: '20270607', end: '20270619' },
  { uid: 'results', summary: 'Results released', start: '20270709' },
];

/** The feed's text (RFC 5545): all-day events, CRLF line ends. */
export function demoCalendarText(): string {
  const nextDay = (date: string, days: number) => {
    const d = new Date(Date.UTC(+date.slice(0, 4), +date.slice(4, 6) - 1, +date.slice(6, 8) + days));
    return d.toISOString().slice(0, 10).replaceAll('-', '');
  };
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Northbridge University (demo)//Key dates//EN',
    'X-WR-CALNAME:Semester 1, 2027 key dates',
    ...EVENTS.flatMap((e) => [
      'BEGIN:VEVENT',
      `UID:${e.uid}@northbridge-demo.example.edu`,
      'DTSTAMP:20261101T000000Z',
      `DTSTART;VALUE=DATE:${e.start}`,
      // DTEND of an all-day event is the day after its last day.
      `DTEND;VALUE=DATE:${nextDay(e.end ?? e.start, 1)}`,
      `SUMMARY:${e.summary}`,
      ...(e.description ? [`DESCRIPTION:${e.description}`] : []),
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
  ];
  return `${lines.join('\r\n')}\r\n`;
}

export const DEMO_CALENDAR_EVENTS = EVENTS.length;

/** Serves the feed at /key-dates.ics and a webhook receiver at /webhook, on 127.0.0.1. */
export async function serveDemoCalendar(
  port = 0,
): Promise<{ url: string; webhookUrl: string; close(): Promise<void> }> {
  const body = demoCalendarText();
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/webhook') {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
      return;
    }
    if (req.method !== 'GET' || req.url !== '/key-dates.ics') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as import('node:net').AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/key-dates.ics`,
    webhookUrl: `http://127.0.0.1:${address.port}/webhook`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
