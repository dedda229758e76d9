import { expandCalendar } from '../src/domain/calendar/expand.ts';

const tzid = 'Europe/London';
const vtz = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/London',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0000',
  'TZOFFSETTO:+0100',
  'DTSTART:19810329T010000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0000',
  'DTSTART:19961027T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];
const events = Array.from({ length: 20_000 }, (_, i) => [
  'BEGIN:VEVENT',
  `UID:ev-${i}@example.edu`,
  `DTSTART;TZID=${tzid}:202609${String(1 + (i % 28)).padStart(2, '0')}T${String(8 + (i % 10)).padStart(2, '0')}0000`,
  `DTEND;TZID=${tzid}:202609${String(1 + (i % 28)).padStart(2, '0')}T${String(9 + (i % 10)).padStart(2, '0')}0000`,
  `SUMMARY:Event ${i}`,
  'END:VEVENT',
]).flat();
const text = ['BEGIN:VCALENDAR', ...vtz, ...events, 'END:VCALENDAR', ''].join('\r\n');
const t = performance.now();
const now = Date.now();
expandCalendar(text, {
  windowStart: now - 1e11,
  windowEnd: now + 1e11,
  maxOccurrences: 1e6,
  maxSteps: 1e7,
  maxStepsPerSeries: 1e5,
});
console.log('expand total', performance.now() - t);
