// Large generated calendars: the largest feeds a fetch accepts (the parse worker's tests and
// the stall benchmark, bench/calendar-stall.ts).

const two = (n: number) => String(n).padStart(2, '0');

/** Single events in September, UTC times; 53,000 of them are 7.9 MB. */
export function singleEventsFeed(events = 53_000): Buffer {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Bench//Events//EN'];
  for (let i = 0; i < events; i++) {
    const day = two(1 + (i % 28));
    lines.push(
      'BEGIN:VEVENT',
      `UID:ev-${i}@events.example.edu`,
      'DTSTAMP:20260801T000000Z',
      `DTSTART:202609${day}T${two(8 + (i % 10))}0000Z`,
      `DTEND:202609${day}T${two(9 + (i % 10))}0000Z`,
      `SUMMARY:Event ${i}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return Buffer.from(lines.join('\r\n'));
}

/** Weekly series in a named zone, COUNT=4 each. */
export function recurringFeed(series = 36_000): Buffer {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Bench//Timetable//EN'];
  for (let i = 0; i < series; i++) {
    const day = two(7 + (i % 5));
    lines.push(
      'BEGIN:VEVENT',
      `UID:series-${i}@timetable.example.edu`,
      'DTSTAMP:20260801T000000Z',
      `DTSTART;TZID=Europe/London:202609${day}T${two(8 + (i % 10))}0000`,
      `DTEND;TZID=Europe/London:202609${day}T${two(9 + (i % 10))}0000`,
      'RRULE:FREQ=WEEKLY;COUNT=4',
      `SUMMARY:Module ${i >> 2}`,
      `LOCATION:Room ${i % 200}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return Buffer.from(lines.join('\r\n'));
}
