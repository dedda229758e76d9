// Migration 0019 on a database holding requests assigned by name before it: a name exactly one
// person of the same institution bears becomes that person (removed or not), a name borne by no
// one or by several stays as it was, and the listing's filters read the result by id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrate } from '../src/db/migrate.ts';
import { listHelpRequests } from '../src/domain/helpdesk/requests.ts';
import { systemClock } from '../src/lib/clock.ts';
import { describeMigration } from './helpers/db.ts';

describeMigration('0019', 'assignment by person', (database) => {
  test('backfills the names exactly one person of the institution bears, and keeps the rest', async () => {
    const db = database();
    const { rows: institutions } = await db.query<{ id: string }>(
      `INSERT INTO institutions (slug, name) VALUES ('m-one', 'One'), ('m-two', 'Two') RETURNING id`,
    );
    const [one, two] = institutions.map((r) => r.id);
    const { rows: people } = await db.query<{ id: string; name: string; institution_id: string }>(
      `INSERT INTO people (institution_id, email, name, roles, removed_at)
         VALUES ($1, 'sam@one.edu', 'Sam Unique', '{staff}', NULL),
                ($1, 'alex1@one.edu', 'Alex Twin', '{staff}', NULL),
                ($1, 'alex2@one.edu', 'Alex Twin', '{admin}', NULL),
                ($1, 'gone@one.edu', 'Gone Person', '{staff}', now()),
                ($2, 'sam@two.edu', 'Sam Unique', '{staff}', NULL),
                ($2, 'only@two.edu', 'Only In Two', '{staff}', NULL)
         RETURNING id, name, institution_id`,
      [one, two],
    );
    const idOf = (name: string, institutionId: string) =>
      people.find((p) => p.name === name && p.institution_id === institutionId)?.id;
    await db.query(
      `INSERT INTO help_requests (institution_id, summary, assigned_to)
         VALUES ($1, 'unique', 'Sam Unique'), ($1, 'twin', 'Alex Twin'), ($1, 'removed', 'Gone Person'),
                ($1, 'nobody', 'No Such Person'), ($1, 'other institution only', 'Only In Two'),
                ($1, 'unassigned', NULL), ($2, 'unique in two', 'Sam Unique')`,
      [one, two],
    );

    // 0019 runs first; the migrations after it run too and change nothing here.
    assert.equal((await migrate(db))[0], '0019_assigned_person');

    const { rows } = await db.query<{
      summary: string;
      assigned_person_id: string | null;
      assigned_to: string | null;
    }>('SELECT summary, assigned_person_id, assigned_to FROM help_requests ORDER BY summary');
    const bySummary = Object.fromEntries(rows.map((r) => [r.summary, [r.assigned_person_id, r.assigned_to]]));
    assert.deepEqual(bySummary, {
      unique: [idOf('Sam Unique', one), null],
      'unique in two': [idOf('Sam Unique', two), null],
      removed: [idOf('Gone Person', one), null],
      twin: [null, 'Alex Twin'],
      nobody: [null, 'No Such Person'],
      'other institution only': [null, 'Only In Two'],
      unassigned: [null, null],
    });

    // The listing reads the result: the person's current name, by id; legacy names count as assigned.
    const list = async (assignment: Parameters<typeof listHelpRequests>[2]['assignment']) =>
      (await listHelpRequests({ db, clock: systemClock }, one, { limit: 50, assignment })).items
        .map((r) => r.summary)
        .sort();
    await db.query(`UPDATE people SET name = 'Sam Renamed' WHERE id = $1`, [idOf('Sam Unique', one)]);
    const page = await listHelpRequests({ db, clock: systemClock }, one, {
      limit: 50,
      assignment: { kind: 'person', personId: idOf('Sam Unique', one) as string },
    });
    assert.deepEqual(
      page.items.map((r) => [r.summary, r.assigned_to, r.assigned_to_id]),
      [['unique', 'Sam Renamed', idOf('Sam Unique', one)]],
    );
    assert.deepEqual(await list({ kind: 'none' }), ['unassigned']);
    assert.deepEqual(await list({ kind: 'any' }), [
      'nobody',
      'other institution only',
      'removed',
      'twin',
      'unique',
    ]);
    // A request never holds both a person and a legacy name.
    await assert.rejects(
      db.query(`UPDATE help_requests SET assigned_to = 'x' WHERE assigned_person_id IS NOT NULL`),
      /help_requests_one_assignee/,
    );
  });
});
