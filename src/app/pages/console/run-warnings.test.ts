import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rowList, warningSentence } from './run-warnings.ts';

test('a warning is a sentence naming the value and the rows it affects', () => {
  assert.equal(
    warningSentence({
      code: 'unknown_program_code',
      field: 'program_code',
      value: 'XYZ',
      rows: [4, 9, 12],
      message: 'no program has the code "XYZ"',
    }),
    '3 rows name program code XYZ, which is not in your programs: rows 4, 9, 12. ' +
      'They imported without a program (a stored one is kept).',
  );
  assert.equal(
    warningSentence({ code: 'unknown_campus', field: 'campus_name', value: 'Moon', rows: [1] }),
    '1 row names campus Moon, which is not in your campuses: row 1. ' +
      'It imported without a campus (a stored one is kept).',
  );
  assert.match(
    warningSentence({ code: 'unknown_campus', field: 'campus_code', value: 'N', rows: [2, 3] }),
    /^2 rows name campus code N, which is not in your campuses: rows 2, 3\./,
  );
});

test('long row lists are cut; warnings of another shape fall back to their message or JSON', () => {
  assert.equal(
    rowList(Array.from({ length: 23 }, (_, i) => i)),
    'rows 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 and 3 more',
  );
  assert.equal(warningSentence('cohort nearly empty'), 'cohort nearly empty');
  assert.equal(warningSentence({ code: 'other', message: 'something else' }), 'something else');
  assert.equal(
    warningSentence({ code: 'unknown_campus', rows: 'x' }),
    '{"code":"unknown_campus","rows":"x"}',
  );
  assert.equal(warningSentence(null), 'null');
});
