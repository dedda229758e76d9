// Rolling upgrades (docs/operations.md): while instances of the previous release still run, the
// schema may only grow. Each migration is applied in turn and the schema compared before and
// after: no table or column that existed goes away or is renamed, no column changes type or
// becomes NOT NULL, and a new NOT NULL column has a default (the previous release's INSERTs do
// not name it). A migration that does contract says so on a line of its own,
// `-- contract: <what the previous release no longer uses, and since which release>`, and ships
// only once no running release uses what it removes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPgliteDb, type Db } from '../../src/db/db.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { testTimeout } from '../helpers/time-limit.ts';

interface Column {
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

async function columns(db: Db): Promise<Map<string, Column>> {
  const { rows } = await db.query<{ name: string; type: string; is_nullable: string; has_default: boolean }>(
    `SELECT table_name || '.' || column_name AS name, data_type || coalesce('(' || udt_name || ')', '') AS type,
            is_nullable, column_default IS NOT NULL OR is_identity = 'YES' OR is_generated = 'ALWAYS' AS has_default
     FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name IN (
       SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE')`,
  );
  return new Map(
    rows.map((r) => [r.name, { type: r.type, nullable: r.is_nullable === 'YES', hasDefault: r.has_default }]),
  );
}

/** What a migration did that an instance of the release before it could trip over. */
function contractions(before: Map<string, Column>, after: Map<string, Column>): string[] {
  const found: string[] = [];
  for (const [name, was] of before) {
    const now = after.get(name);
    if (!now) found.push(`${name} was dropped or renamed`);
    else if (now.type !== was.type) found.push(`${name} changed type from ${was.type} to ${now.type}`);
    else if (was.nullable && !now.nullable) found.push(`${name} became NOT NULL`);
  }
  for (const [name, column] of after) {
    if (!before.has(name) && before.size > 0 && !column.nullable && !column.hasDefault) {
      const table = name.split('.')[0];
      // A new table's columns are the new release's own; only new columns of old tables count.
      if ([...before.keys()].some((old) => old.startsWith(`${table}.`)))
        found.push(`${name} was added NOT NULL without a default`);
    }
  }
  return found;
}

test('the rule itself: drops, renames, type changes, NOT NULL and bare NOT NULL additions are contractions', () => {
  const col = (type: string, nullable = true, hasDefault = false): Column => ({ type, nullable, hasDefault });
  const before = new Map([
    ['t.a', col('text')],
    ['t.b', col('integer')],
    ['t.c', col('text')],
  ]);
  const after = new Map([
    ['t.b', col('bigint')],
    ['t.c', col('text', false)],
    ['t.d', col('text', false)],
    ['t.e', col('text', false, true)],
    ['u.x', col('text', false)],
  ]);
  assert.deepEqual(contractions(before, after), [
    't.a was dropped or renamed',
    't.b changed type from integer to bigint',
    't.c became NOT NULL',
    't.d was added NOT NULL without a default',
  ]);
});

test('every migration only expands the schema, or says it contracts', {
  timeout: testTimeout(300_000),
}, async () => {
  const db = await createPgliteDb();
  try {
    const problems: string[] = [];
    let before = new Map<string, Column>();
    for (const migration of listMigrations()) {
      await migrate(db, [migration]);
      const after = await columns(db);
      const marked = /^-- contract: \S/m.test(migration.sql);
      if (!marked)
        for (const found of contractions(before, after)) problems.push(`${migration.version}: ${found}`);
      before = after;
    }
    assert.deepEqual(problems, []);
  } finally {
    await db.close();
  }
});
