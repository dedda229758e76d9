// Merging one campus into another (spec 2.4: a campus renamed upstream arrives as a second
// campus and an operator merges the two by hand). Everything that pointed at the merged
// campus moves to the surviving one, the merged name becomes an alias of the survivor, the
// merged campus and its audience tag go, and the merge is written to the operator audit.

import type { Db, Queryable } from '../../db/db.ts';
import { InstitutionLock, lockInstitution } from '../../db/locks.ts';
import { ApiError } from '../../errors.ts';
import { appendOperatorAudit, readOperatorAudit } from '../audit/operator-audit.ts';
import type { CampusAlias, MergeResult } from './schemas.ts';

export type { MergeResult };

interface CampusRow {
  id: string;
  name: string;
}

/** Tables whose campus_id moves with a merge; units exist once the teaching taxonomy is installed. */
async function campusReferencingTables(tx: Queryable): Promise<string[]> {
  const { rows } = await tx.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND column_name = 'campus_id'
       AND table_name IN ('students', 'units')`,
  );
  return rows.map((r) => r.table_name).sort();
}

/** Finds a campus by id or by name (case-insensitive), also through an alias. */
async function findCampus(tx: Queryable, institutionId: string, ref: string): Promise<CampusRow | undefined> {
  const { rows } = await tx.query<CampusRow>(
    `SELECT c.id, c.name FROM campuses c
     WHERE c.institution_id = $1
       AND (($2::text ~* '^[0-9a-f-]{36}$' AND c.id::text = lower($2::text))
            OR lower(c.name) = lower($2::text)
            OR c.id = (SELECT a.campus_id FROM campus_aliases a
                       WHERE a.institution_id = $1 AND lower(a.alias) = lower($2::text)))
     ORDER BY lower(c.name) = lower($2::text) DESC
     LIMIT 1
     FOR UPDATE`,
    [institutionId, ref],
  );
  return rows[0];
}

export function createCampusMergeService(db: Db) {
  return {
    async merge(
      institutionId: string,
      input: { from: string; into: string; actor: string },
    ): Promise<MergeResult> {
      return db.transaction(async (tx) => {
        // A push that resolved the merged campus must not write to it after it is gone.
        await lockInstitution(tx, institutionId, InstitutionLock.roster, InstitutionLock.taxonomy);
        const from = await findCampus(tx, institutionId, input.from);
        const into = await findCampus(tx, institutionId, input.into);
        if (!from) throw new ApiError('not_found', { field: 'from', detail: `no campus "${input.from}"` });
        if (!into) throw new ApiError('not_found', { field: 'into', detail: `no campus "${input.into}"` });
        if (from.id === into.id) {
          throw new ApiError('invalid_field', {
            field: 'into',
            detail: 'a campus cannot be merged into itself',
          });
        }

        const moved = { students: 0, units: 0, aliases: 0 };
        for (const table of await campusReferencingTables(tx)) {
          const result = await tx.query(
            `UPDATE ${table} SET campus_id = $3 WHERE institution_id = $1 AND campus_id = $2`,
            [institutionId, from.id, into.id],
          );
          moved[table as 'students' | 'units'] = result.rowCount;
        }
        // Aliases of the merged campus follow it; its own name becomes one more.
        const aliases = await tx.query(
          'UPDATE campus_aliases SET campus_id = $3 WHERE institution_id = $1 AND campus_id = $2',
          [institutionId, from.id, into.id],
        );
        moved.aliases = aliases.rowCount;
        await tx.query(
          'DELETE FROM audience_tags WHERE institution_id = $1 AND kind = $2 AND source_id = $3',
          [institutionId, 'campus', from.id],
        );
        await tx.query('DELETE FROM campuses WHERE institution_id = $1 AND id = $2', [
          institutionId,
          from.id,
        ]);
        await tx.query(
          `INSERT INTO campus_aliases (institution_id, alias, campus_id) VALUES ($1, $2, $3)
           ON CONFLICT (institution_id, lower(alias)) DO UPDATE SET campus_id = EXCLUDED.campus_id`,
          [institutionId, from.name, into.id],
        );
        const result: MergeResult = { merged: from, into, moved, alias: from.name };
        await appendOperatorAudit(tx, {
          institutionId,
          actor: input.actor,
          action: 'campus.merge',
          details: { ...result },
        });
        return result;
      });
    },

    /** The institution's operator audit trail, newest first (merges, departure decisions). */
    operatorAudit: (institutionId: string) => readOperatorAudit(db, institutionId),

    /** The names that match a campus because of a merge, by name. */
    async aliases(institutionId: string): Promise<CampusAlias[]> {
      const { rows } = await db.query<CampusAlias>(
        `SELECT a.alias, a.campus_id, c.name AS campus_name, a.created_at
         FROM campus_aliases a JOIN campuses c ON c.id = a.campus_id AND c.institution_id = a.institution_id
         WHERE a.institution_id = $1 ORDER BY lower(a.alias)`,
        [institutionId],
      );
      return rows;
    },
  };
}

export type CampusMergeService = ReturnType<typeof createCampusMergeService>;
