// Realistic calendar exports, written the way each producer writes them (line endings, folding,
// time-zone blocks, property order), for the feed tests and the benchmark.

const CRLF = '\r\n';

/** Folds a content line at 75 octets (RFC 5545 3.1), splitting multi-byte characters as real producers do. */
export function fold(line: string): string {
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= 75) return bytes.toString('latin1');
  const parts: Buffer[] = [bytes.subarray(0, 75)];
  for (let i = 75; i < bytes.length; i += 74) parts.push(bytes.subarray(i, i + 74));
  // Joined as latin1 so the split bytes survive into the Buffer the server sends.
  return parts.map((p) => p.toString('latin1')).join(`${CRLF} `);
}

/** A calendar body as bytes: lines folded, CRLF endings. */
export function ics(lines: string[]): Buffer {
  return Buffer.from(lines.map((l) => fold(l)).join(CRLF) + CRLF, 'latin1');
}

const europeBerlin = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'X-LIC-LOCATION:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

export interface GoogleOptions {
  /** Change the seminar's title (an update). */
  seminarTitle?: string;
  /** Leave the office hours out (a removal). */
  withoutOfficeHours?: boolean;
  /** Add the guest lecture (an addition). */
  withGuestLecture?: boolean;
  /** Cancel one more lecture with an EXDATE. */
  extraExdate?: boolean;
}

/** Google Calendar: X-WR-* headers, VTIMEZONE, weekly lectures with EXDATE and a moved occurrence. */
export function googleCalendar(o: GoogleOptions = {}): Buffer {
  const exdates = ['20260921T091500'];
  if (o.extraExdate) exdates.push('20261005T091500');
  return ics([
    'BEGIN:VCALENDAR',
    'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
    'VERSION:2.0',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    'X-WR-CALNAME:Student Services – Autumn Term',
    'X-WR-TIMEZONE:Europe/Berlin',
    ...europeBerlin,
    'BEGIN:VEVENT',
    'DTSTART;TZID=Europe/Berlin:20260907T091500',
    'DTEND;TZID=Europe/Berlin:20260907T104500',
    'RRULE:FREQ=WEEKLY;WKST=MO;UNTIL=20261102T081500Z;BYDAY=MO',
    `EXDATE;TZID=Europe/Berlin:${exdates.join(',')}`,
    'DTSTAMP:20260820T101010Z',
    'UID:4h1q0v9l7d3m2kq1r6o8a5c9t0@google.com',
    'CREATED:20260801T080000Z',
    'DESCRIPTION:Weekly introduction lecture.\\nBring your student card\\; seats are limited.',
    'LAST-MODIFIED:20260820T101010Z',
    'LOCATION:Hörsaal 1\\, Hauptgebäude',
    'SEQUENCE:2',
    'STATUS:CONFIRMED',
    'SUMMARY:Einführungsvorlesung',
    'TRANSP:OPAQUE',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'DTSTART;TZID=Europe/Berlin:20260915T160000',
    'DTEND;TZID=Europe/Berlin:20260915T173000',
    'DTSTAMP:20260820T101010Z',
    'UID:4h1q0v9l7d3m2kq1r6o8a5c9t0@google.com',
    'RECURRENCE-ID;TZID=Europe/Berlin:20260914T091500',
    'LOCATION:Raum 2.07',
    'SEQUENCE:3',
    'STATUS:CONFIRMED',
    'SUMMARY:Einführungsvorlesung (verschoben)',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'DTSTART;TZID=Europe/Berlin:20260910T140000',
    'DTEND;TZID=Europe/Berlin:20260910T153000',
    'DTSTAMP:20260820T101010Z',
    'UID:seminar-7731@google.com',
    `SUMMARY:${o.seminarTitle ?? 'Study skills seminar'}`,
    'END:VEVENT',
    ...(o.withoutOfficeHours
      ? []
      : [
          'BEGIN:VEVENT',
          'DTSTART;VALUE=DATE:20260916',
          'DTEND;VALUE=DATE:20260917',
          'DTSTAMP:20260820T101010Z',
          'UID:office-hours-day@google.com',
          'SUMMARY:Open office day',
          'TRANSP:TRANSPARENT',
          'END:VEVENT',
        ]),
    ...(o.withGuestLecture
      ? [
          'BEGIN:VEVENT',
          'DTSTART:20260924T170000Z',
          'DTEND:20260924T183000Z',
          'DTSTAMP:20260820T101010Z',
          'UID:guest-lecture@google.com',
          'SUMMARY:Guest lecture',
          'END:VEVENT',
        ]
      : []),
    'END:VCALENDAR',
  ]);
}

/** Outlook / Exchange: Windows zone names, a VTIMEZONE for one, none for another, all-day as Outlook writes it. */
export function outlookCalendar(): Buffer {
  return ics([
    'BEGIN:VCALENDAR',
    'METHOD:PUBLISH',
    'PRODID:Microsoft Exchange Server 2010',
    'VERSION:2.0',
    'X-WR-CALNAME:Calendar',
    'BEGIN:VTIMEZONE',
    'TZID:AUS Eastern Standard Time',
    'BEGIN:STANDARD',
    'DTSTART:16010101T030000',
    'TZOFFSETFROM:+1100',
    'TZOFFSETTO:+1000',
    'RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=1SU;BYMONTH=4',
    'END:STANDARD',
    'BEGIN:DAYLIGHT',
    'DTSTART:16010101T020000',
    'TZOFFSETFROM:+1000',
    'TZOFFSETTO:+1100',
    'RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=1SU;BYMONTH=10',
    'END:DAYLIGHT',
    'END:VTIMEZONE',
    'BEGIN:VEVENT',
    'DESCRIPTION:\\n',
    'RRULE:FREQ=WEEKLY;COUNT=4;INTERVAL=1;BYDAY=TH;WKST=SU',
    'UID:040000008200E00074C5B7101A82E00800000000D0A6C1E1E5A1DC01000000000000000010000000F5C3',
    'SUMMARY:Tutorial group B',
    'DTSTART;TZID=AUS Eastern Standard Time:20260924T100000',
    'DTEND;TZID=AUS Eastern Standard Time:20260924T110000',
    'CLASS:PUBLIC',
    'PRIORITY:5',
    'DTSTAMP:20260901T000000Z',
    'TRANSP:OPAQUE',
    'STATUS:CONFIRMED',
    'SEQUENCE:0',
    'LOCATION:Building 12 Room 3',
    'X-MICROSOFT-CDO-BUSYSTATUS:BUSY',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:040000008200E00074C5B7101A82E00800000000AB12',
    'SUMMARY:Advising drop-in',
    'DTSTART;TZID=Pacific Standard Time:20261110T090000',
    'DTEND;TZID=Pacific Standard Time:20261110T093000',
    'DTSTAMP:20260901T000000Z',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:040000008200E00074C5B7101A82E00800000000CD34',
    'SUMMARY:Census date',
    'DTSTART;VALUE=DATE:20261002',
    'DTEND;VALUE=DATE:20261003',
    'X-MICROSOFT-CDO-ALLDAYEVENT:TRUE',
    'DTSTAMP:20260901T000000Z',
    'END:VEVENT',
    'END:VCALENDAR',
  ]);
}

/** Apple iCloud: VTIMEZONE with TZNAME, a multi-day all-day event, a cancelled occurrence, DURATION. */
export function icloudCalendar(): Buffer {
  return ics([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Apple Inc.//macOS 15.0//EN',
    'CALSCALE:GREGORIAN',
    'X-WR-CALNAME:Campus Life',
    'X-APPLE-CALENDAR-COLOR:#FF2968',
    'BEGIN:VTIMEZONE',
    'TZID:America/Los_Angeles',
    'BEGIN:DAYLIGHT',
    'TZOFFSETFROM:-0800',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU',
    'DTSTART:20070311T020000',
    'TZNAME:PDT',
    'TZOFFSETTO:-0700',
    'END:DAYLIGHT',
    'BEGIN:STANDARD',
    'TZOFFSETFROM:-0700',
    'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU',
    'DTSTART:20071104T020000',
    'TZNAME:PST',
    'TZOFFSETTO:-0800',
    'END:STANDARD',
    'END:VTIMEZONE',
    'BEGIN:VEVENT',
    'CREATED:20260815T180000Z',
    'UID:5C4E1B8A-7F0D-4B1E-9C3A-2B6F8D1E0A11',
    'DTEND;VALUE=DATE:20260929',
    'TRANSP:TRANSPARENT',
    'SUMMARY:Welcome week 🎉',
    'DTSTART;VALUE=DATE:20260924',
    'DTSTAMP:20260815T180000Z',
    'SEQUENCE:0',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:9D1F2A3B-1111-4C2D-8E9F-ABCDEF012345',
    'DTSTART;TZID=America/Los_Angeles:20261027T180000',
    'DURATION:PT2H',
    'RRULE:FREQ=WEEKLY;COUNT=3',
    'SUMMARY:Peer mentoring',
    'LOCATION:Library\\, Level 2',
    'DTSTAMP:20260815T180000Z',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:9D1F2A3B-1111-4C2D-8E9F-ABCDEF012345',
    'RECURRENCE-ID;TZID=America/Los_Angeles:20261103T180000',
    'DTSTART;TZID=America/Los_Angeles:20261103T180000',
    'DURATION:PT2H',
    'SUMMARY:Peer mentoring',
    'STATUS:CANCELLED',
    'DTSTAMP:20260815T180000Z',
    'END:VEVENT',
    'END:VCALENDAR',
  ]);
}

/** Moodle export: UTC times, long folded descriptions with accents, CATEGORIES, escaped text. */
export function moodleCalendar(): Buffer {
  const description =
    'Submit your réflexion écrite (1 500 mots) via the course page. Les travaux rendus après la date limite perdent 5 % par jour\\; contactez le secrétariat pour toute prolongation\\, merci. Ça commence bientôt — 日本語の説明もあります。';
  return ics([
    'BEGIN:VCALENDAR',
    'METHOD:PUBLISH',
    'PRODID:-//Moodle Pty Ltd//NONSGML Moodle Version 2024100700//EN',
    'VERSION:2.0',
    'BEGIN:VEVENT',
    'UID:1523@moodle.example.edu',
    'SUMMARY:Essai 1 est à remettre',
    `DESCRIPTION:${description}`,
    'CLASS:PUBLIC',
    'LAST-MODIFIED:20260828T093012Z',
    'DTSTAMP:20260901T061500Z',
    'DTSTART:20261015T215900Z',
    'DTEND:20261015T215900Z',
    'CATEGORIES:FR101 Rédaction',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:1524@moodle.example.edu',
    'SUMMARY:Quiz 2 opens',
    'DESCRIPTION:',
    'CLASS:PUBLIC',
    'LAST-MODIFIED:20260828T093012Z',
    'DTSTAMP:20260901T061500Z',
    'DTSTART:20261020T080000Z',
    'DTEND:20261020T080000Z',
    'CATEGORIES:FR101 Rédaction',
    'END:VEVENT',
    'END:VCALENDAR',
  ]);
}
