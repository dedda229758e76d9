import assert from 'node:assert/strict';
import { test } from 'node:test';
import ICAL from 'ical.js';
import { neverMatches } from './rule-check.ts';

const judge = (text: string) => {
  const rule = ICAL.Recur.fromString(text);
  return neverMatches({ freq: rule.freq, parts: rule.parts, wkst: rule.wkst });
};

test('rules no day can satisfy are found', () => {
  for (const rule of [
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=-30',
    'FREQ=YEARLY;BYMONTH=4,6,9,11;BYMONTHDAY=31',
    'FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=30,31',
    'FREQ=YEARLY;BYYEARDAY=1;BYMONTH=2',
    'FREQ=YEARLY;BYYEARDAY=60;BYMONTH=4',
    'FREQ=YEARLY;BYYEARDAY=100;BYMONTHDAY=1',
    'FREQ=YEARLY;BYWEEKNO=20;BYMONTH=1',
    'FREQ=YEARLY;BYWEEKNO=1;BYMONTH=6',
    'FREQ=MONTHLY;BYDAY=5MO;BYMONTH=2;BYMONTHDAY=1',
    'FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=15',
    'FREQ=YEARLY;BYDAY=1MO;BYMONTH=4;BYMONTHDAY=15,16,17,18,19,20,21',
    'FREQ=HOURLY;BYMONTH=11;BYMONTHDAY=31',
  ])
    assert.match(judge(rule) ?? 'passed', /never match/, rule);
});

test('rare but possible rules pass', () => {
  for (const rule of [
    'FREQ=DAILY',
    'FREQ=WEEKLY;BYDAY=MO,WE',
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29',
    'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-29',
    'FREQ=MONTHLY;BYMONTHDAY=31',
    'FREQ=MONTHLY;BYDAY=5MO',
    'FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13',
    'FREQ=YEARLY;BYDAY=53MO',
    'FREQ=YEARLY;BYYEARDAY=366',
    'FREQ=YEARLY;BYYEARDAY=-366;BYMONTH=1;BYMONTHDAY=1',
    'FREQ=YEARLY;BYWEEKNO=53',
    'FREQ=YEARLY;BYWEEKNO=-53;BYDAY=MO',
    // Week 1 may start in late December; week 52/53 may end in early January.
    'FREQ=YEARLY;BYWEEKNO=1;BYMONTH=12;BYMONTHDAY=31',
    'FREQ=YEARLY;BYWEEKNO=53;BYMONTH=1;BYMONTHDAY=1',
    'FREQ=YEARLY;BYWEEKNO=1;BYDAY=SU;WKST=SU',
    'FREQ=YEARLY;BYMONTH=2;BYDAY=5SA',
    'FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10',
  ])
    assert.equal(judge(rule), null, rule);
});
