// Programs (spec 2.3): keyed by program_code, case-insensitively; each new one gets its audience tag.
// One statement matches the rows, one inserts the new ones, one updates the changed ones.
import { type ProgramRow, parseProgram } from '../rows.ts';
import {
  firstOfEachKey,
  keep,
  noChanges,
  parseAll,
  type SectionHandler,
  sortRow,
  writeChanges,
} from '../section.ts';

interface StoredProgram {
  i: number;
  key: string;
  id: string | null;
  code: string | null;
  name: string | null;
  coordinator_name: string | null;
  coordinator_title: string | null;
}

export const programs: SectionHandler = async (context, rows) => {
  const { q, institutionId } = context;
  const parsed = parseAll<ProgramRow>(context, rows, parseProgram);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  const { rows: matched } = await q.query<StoredProgram>(
    `SELECT r.i, lower(r.code) AS key, p.id, p.code, p.name, p.coordinator_name, p.coordinator_title
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, code text)
     LEFT JOIN programs p ON p.institution_id = $1 AND lower(p.code) = lower(r.code)`,
    [institutionId, JSON.stringify(parsed.map((row) => ({ i: row.i, code: row.value.code })))],
  );
  const kept = firstOfEachKey(context, matched, (row) => `the program code ${byIndex.get(row.i)!.code}`);
  const changes = noChanges();
  for (const stored of kept) {
    const incoming = byIndex.get(stored.i)!;
    const next = {
      code: incoming.code,
      name: keep(incoming.name, stored.name),
      coordinator_name: keep(incoming.coordinator_name, stored.coordinator_name),
      coordinator_title: keep(incoming.coordinator_title, stored.coordinator_title),
    };
    sortRow(context, changes, stored, next);
  }
  // Each new program gets its audience tag in the same statement; the tag's label is the
  // program's name, or its code while it has none.
  await writeChanges(context, changes, {
    insert: `WITH created AS (
         INSERT INTO programs (institution_id, code, name, coordinator_name, coordinator_title, created_at, updated_at)
         SELECT $1, r.code, r.name, r.coordinator_name, r.coordinator_title, $3, $3
         FROM jsonb_to_recordset($2::jsonb) AS r(code text, name text, coordinator_name text, coordinator_title text)
         ON CONFLICT DO NOTHING
         RETURNING id, code, name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'program', id, coalesce(name, code), $3 FROM created
       ON CONFLICT DO NOTHING`,
    update: `WITH changed AS (
         UPDATE programs p
         SET code = r.code, name = r.name, coordinator_name = r.coordinator_name,
             coordinator_title = r.coordinator_title, updated_at = $3
         FROM jsonb_to_recordset($2::jsonb)
           AS r(id uuid, code text, name text, coordinator_name text, coordinator_title text)
         WHERE p.id = r.id AND p.institution_id = $1
         RETURNING p.id, p.code, p.name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'program', id, coalesce(name, code), $3 FROM changed
       ON CONFLICT (institution_id, kind, source_id)
       DO UPDATE SET label = EXCLUDED.label WHERE audience_tags.label IS DISTINCT FROM EXCLUDED.label`,
  });
};
