// Merging one campus into another (spec 2.4: a campus renamed upstream arrives as a second
// campus and an operator merges the two by hand). Everything that pointed at the merged
// campus moves to the surviving one, the merged name becomes an alias of the survivor, the
// merged campus and its audience tag go, and the merge is written to the operator audit.
// One transaction of a fixed number of statements (queries.ts), whatever the campus holds.

import type { Db, Queryable } from '../../db/db.ts';
import { InstitutionLock, lockInstitution } from '../../db/locks.ts';
import { ApiError } from '../../errors.ts';
import { appendOperatorAudit } from '../audit/operator-audit.ts';
import {
  addAlias,
  campusReferencingTables,
  deleteCampus,
  findCampus,
  moveAliases,
  moveCampusRows,
  selectAliases,
} from './queries.ts';
import type { CampusAlias, MergeResult } from './schemas.ts';

export type { MergeResult };

/**
 * Merges campus `from` into `into` (each named by id or name), as `actor`. 404 not_found naming
 * the field of a campus that does not exist; 400 invalid_field for a campus into itself.
 */
export function mergeCampuses(
  db: Db,
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
    const move = { from: from.id, into: into.id };
    const moved = { students: 0, units: 0, aliases: 0 };
    for (const table of await campusReferencingTables(tx)) {
      moved[table as 'students' | 'units'] = await moveCampusRows(
        tx,
        table as 'students' | 'units',
        institutionId,
        move,
      );
    }
    // Aliases of the merged campus follow it; its own name becomes one more.
    moved.aliases = await moveAliases(tx, institutionId, move);
    await deleteCampus(tx, institutionId, from.id);
    await addAlias(tx, institutionId, from.name, into.id);
    const result: MergeResult = { merged: from, into, moved, alias: from.name };
    await appendOperatorAudit(tx, {
      institutionId,
      actor: input.actor,
      action: 'campus.merge',
      details: { ...result },
    });
    return result;
  });
}

/** The names that match a campus because of a merge, by name. */
export function campusAliases(db: Queryable, institutionId: string): Promise<CampusAlias[]> {
  return selectAliases(db, institutionId);
}

/** The functions above bound to a database, under the names every caller uses. */
