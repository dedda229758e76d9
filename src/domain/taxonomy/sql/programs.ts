// Programs' statements: the rows matched by code (case-insensitive); each new program gets its
// audience tag in the same statement, labelled with its name, or its code while it has none.
import { matchStatement, rowsStatement, type SectionWrites } from './write.ts';

export interface StoredProgram {
  i: number;
  key: string;
  id: string | null;
  code: string | null;
  name: string | null;
  coordinator_name: string | null;
  coordinator_title: string | null;
}

export const matchPrograms = matchStatement<{ i: number; code: string }, StoredProgram>(
  `SELECT r.i, lower(r.code) AS key, p.id, p.code, p.name, p.coordinator_name, p.coordinator_title
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, code text)
     LEFT JOIN programs p ON p.institution_id = $1 AND lower(p.code) = lower(r.code)`,
);

export const writePrograms: SectionWrites = {
  insert: rowsStatement(`WITH created AS (
         INSERT INTO programs (institution_id, code, name, coordinator_name, coordinator_title, created_at, updated_at)
         SELECT $1, r.code, r.name, r.coordinator_name, r.coordinator_title, $3, $3
         FROM jsonb_to_recordset($2::jsonb) AS r(code text, name text, coordinator_name text, coordinator_title text)
         ON CONFLICT DO NOTHING
         RETURNING id, code, name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'program', id, coalesce(name, code), $3 FROM created
       ON CONFLICT DO NOTHING`),
  update: rowsStatement(`WITH changed AS (
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
       DO UPDATE SET label = EXCLUDED.label WHERE audience_tags.label IS DISTINCT FROM EXCLUDED.label`),
};
