// Migration 0085 on a database holding requests from before it: each request's first
// acknowledgement is backfilled from its timeline (the first assignment, status other than New, or
// reply), or from when it was last changed for one acknowledged without such an entry; a request
// still waiting keeps none. The triggers then keep it for every later change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrate } from '../src/db/migrate.ts';
import { describeMigration } from './helpers/db.ts';

describeMigration('0085', 'first response', (database) => {
  test('backfills from the timeline, else from the last change; a request still waiting has none', async () => {
    const db = database();
    const { rows: institutions } = await db.query<{ id: string }>(
      `INSERT INTO institutions (slug, name) VALUES ('m-first', 'First') RETURNING id`,
    );
    const institution = institutions[0].id;
    const at = (minutes: number) => new Date(Date.UTC(2026, 2, 1, 9, minutes));
    const { rows: requests } = await db.query<{ id: string; summary: string }>(
      `INSERT INTO help_requests (institution_id, summary, status, assigned_to, resolved_at, created_at, updated_at)
         VALUES ($1, 'assigned then moved', 'in_progress', NULL, NULL, $2, $5),
                ($1, 'acknowledged by the desk', 'ack', NULL, NULL, $2, $4),
                ($1, 'legacy name only', 'new', 'Somebody', NULL, $2, $3),
                ($1, 'noted only', 'new', NULL, NULL, $2, $4),
                ($1, 'untouched', 'new', NULL, NULL, $2, $2)
         RETURNING id, summary`,
      [institution, at(0), at(3), at(7), at(9)],
    );
    const id = (summary: string) => requests.find((r) => r.summary === summary)?.id;
    await db.query(
      `INSERT INTO help_request_timeline (institution_id, help_request_id, kind, action, actor, origin, note,
           from_status, to_status, version, created_at)
         VALUES ($1, $2, 'audit', 'assign', 'Kai', 'platform', NULL, NULL, NULL, 2, $5),
                ($1, $2, 'audit', 'status', 'Kai', 'platform', NULL, 'new', 'in_progress', 3, $6),
                ($1, $3, 'audit', 'acknowledge', 'Desk', 'integration', NULL, 'new', 'ack', 2, $7),
                ($1, $4, 'note', 'note', 'Kai', 'platform', 'Tried to call', NULL, NULL, 1, $6)`,
      [
        institution,
        id('assigned then moved'),
        id('acknowledged by the desk'),
        id('noted only'),
        at(2),
        at(5),
        at(4),
      ],
    );

    assert.equal((await migrate(db))[0], '0085_inbox_first_response');

    const { rows } = await db.query<{ summary: string; first_response_at: Date | null }>(
      'SELECT summary, first_response_at FROM help_requests WHERE institution_id = $1',
      [institution],
    );
    const first = Object.fromEntries(
      rows.map((r) => [r.summary, r.first_response_at?.toISOString() ?? null]),
    );
    assert.deepEqual(first, {
      'assigned then moved': at(2).toISOString(),
      'acknowledged by the desk': at(4).toISOString(),
      'legacy name only': at(3).toISOString(),
      'noted only': null,
      untouched: null,
    });

    // From now on the triggers keep it: a status change stamps its own time, once.
    await db.query(`UPDATE help_requests SET status = 'ack', updated_at = $2 WHERE id = $1`, [
      id('untouched'),
      at(30),
    ]);
    await db.query(`UPDATE help_requests SET status = 'in_progress', updated_at = $2 WHERE id = $1`, [
      id('untouched'),
      at(40),
    ]);
    const { rows: after } = await db.query<{ first_response_at: Date }>(
      'SELECT first_response_at FROM help_requests WHERE id = $1',
      [id('untouched')],
    );
    assert.equal(after[0].first_response_at.toISOString(), at(30).toISOString());

    // A reply to the student (a timeline entry of kind 'reply', once the conversation's migration
    // allows that kind) stamps the reply's time.
    const { rows: kinds } = await db.query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
         WHERE c.conrelid = 'help_request_timeline'::regclass AND c.contype = 'c'
           AND pg_get_constraintdef(c.oid) LIKE '%kind%'`,
    );
    // Until then the constraint is set aside inside a transaction that is rolled back.
    const allowed = kinds.every((k) => k.def.includes("'reply'"));
    const rollback = new Error('rolled back on purpose');
    const stamped = await db
      .transaction(async (tx) => {
        if (!allowed)
          await tx.query(
            'ALTER TABLE help_request_timeline DROP CONSTRAINT help_request_timeline_kind_check',
          );
        await tx.query(
          `INSERT INTO help_request_timeline (institution_id, help_request_id, kind, action, actor, origin, note,
               version, created_at) VALUES ($1, $2, 'reply', 'reply', 'Kai', 'platform', 'We are here', 1, $3)`,
          [institution, id('noted only'), at(50)],
        );
        const { rows: replied } = await tx.query<{ first_response_at: Date }>(
          'SELECT first_response_at FROM help_requests WHERE id = $1',
          [id('noted only')],
        );
        if (allowed) return replied[0].first_response_at;
        throw Object.assign(rollback, { stamped: replied[0].first_response_at });
      })
      .catch((error) => {
        if (error !== rollback) throw error;
        return (error as Error & { stamped: Date }).stamped;
      });
    assert.equal(stamped.toISOString(), at(50).toISOString());
  });
});
