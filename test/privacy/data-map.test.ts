// The data map (src/domain/privacy/data-map.ts) against the schema the migrations build and
// against docs/privacy.md: a migration that adds a text, JSON or array column fails here until
// the column is classified, and a personal column fails until the document names it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { dataMap, personalColumns } from '../../src/domain/privacy/data-map.ts';
import { erasureSteps } from '../../src/domain/privacy/erasure.ts';
import { erasureStepNames } from '../../src/domain/privacy/erasure-step-names.ts';
import { openScratchPglite } from '../helpers/scratch-db.ts';

const doc = fs.readFileSync(new URL('../../docs/privacy.md', import.meta.url), 'utf8');

test('every text, JSON and array column of every table is classified in the data map, and only those', async () => {
  const db = await openScratchPglite();
  try {
    const { rows } = await db.query<{ name: string }>(
      `SELECT c.table_name || '.' || c.column_name AS name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
       WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
         AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'bytea', 'tsvector')
       ORDER BY 1`,
    );
    const inSchema = new Set(rows.map((r) => r.name));
    const inMap = new Set(dataMap.flatMap((t) => Object.keys(t.columns).map((c) => `${t.table}.${c}`)));
    const unclassified = [...inSchema].filter((c) => !inMap.has(c));
    assert.deepEqual(unclassified, [], 'classify these columns in src/domain/privacy/data-map.ts');
    const stale = [...inMap].filter((c) => !inSchema.has(c));
    assert.deepEqual(stale, [], 'these columns of the data map no longer exist');
  } finally {
    await db.close();
  }
});

test('docs/privacy.md names every personal column, and names no column the map calls not personal', () => {
  const missing = personalColumns().filter((c) => !doc.includes(`\`${c.name}\``));
  assert.deepEqual(missing, [], 'name these in docs/privacy.md');
  const named = [...doc.matchAll(/`([a-z_]+)\.([a-z_]+)`/g)].map((m) => `${m[1]}.${m[2]}`);
  const personal = new Set(personalColumns().map((c) => c.name));
  const tables = new Set(dataMap.map((t) => t.table));
  const wrong = named.filter((n) => tables.has(n.split('.')[0]) && !personal.has(n));
  assert.deepEqual(wrong, [], 'the document calls these personal; the map does not');
});

test("every table holding a student's data names an erasure step that exists, and every step is run", () => {
  const withStudentData = dataMap.filter((t) =>
    Object.values(t.columns).some((c) => c.personal === 'student'),
  );
  for (const table of withStudentData) {
    assert.ok(
      table.erasure && erasureStepNames.includes(table.erasure),
      `${table.table} names no erasure step`,
    );
  }
  assert.deepEqual(Object.keys(erasureSteps).sort(), [...erasureStepNames].sort());
});
