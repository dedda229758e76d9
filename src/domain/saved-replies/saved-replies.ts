// Saved replies: a few named texts an institution's admins keep (the out-of-hours crisis wording,
// for example) that staff insert into a reply and edit before sending. Admins manage them on the
// console's Saved replies page (audited with every other console change); staff read them on a
// request's page. Nothing is sent from here: a saved reply becomes a reply only when a staff
// member sends the reply box.
import { type Db, PgErrorCode, pgErrorCode } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { isStorableText } from '../../lib/text.ts';
import type { Deps } from '../deps.ts';
import {
  countSavedReplies,
  deleteSavedReply,
  insertSavedReply,
  type SavedReply,
  selectSavedReplies,
  selectSavedReply,
  updateSavedReply,
} from './queries.ts';

export type { SavedReply };

export const MAX_SAVED_REPLY_NAME = 100;
/** As long as a reply may be. */
export const MAX_SAVED_REPLY_BODY = 5_000;
/** A few, not a library: the list is a select on every request's page. */
export const MAX_SAVED_REPLIES = 50;

export interface SavedReplyInput {
  name: string;
  body: string;
}

/** The problems of a saved reply's form, by field (empty when it can be saved). */
export function savedReplyProblems(input: SavedReplyInput): Record<string, string> {
  const problems: Record<string, string> = {};
  const name = input.name.trim();
  if (name === '') problems.name = 'Give the saved reply a name staff will recognise';
  else if (name.length > MAX_SAVED_REPLY_NAME || !isStorableText(name))
    problems.name = `A name is at most ${MAX_SAVED_REPLY_NAME} characters`;
  if (input.body.trim() === '') problems.body = 'Write the text staff will insert';
  else if (input.body.length > MAX_SAVED_REPLY_BODY || !isStorableText(input.body))
    problems.body = `The text is at most ${MAX_SAVED_REPLY_BODY.toLocaleString('en')} characters (it is ${input.body.length.toLocaleString('en')})`;
  return problems;
}

function check(input: SavedReplyInput): SavedReplyInput {
  const problems = Object.entries(savedReplyProblems(input));
  if (problems.length > 0) {
    const [field, detail] = problems[0];
    throw new ApiError('invalid_field', { field, detail });
  }
  return { name: input.name.trim(), body: input.body };
}

const notFound = () =>
  new ApiError('not_found', { detail: 'no saved reply with this id in this institution' });
const nameTaken = (name: string) =>
  new ApiError('conflict', { field: 'name', detail: `a saved reply is already called “${name}”` });

/** Runs a write, turning a second saved reply of the same name into 409 conflict. */
async function uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (pgErrorCode(error) === PgErrorCode.uniqueViolation) throw nameTaken(name);
    throw error;
  }
}

/** The institution's saved replies, by name. */
export function listSavedReplies(db: Db, institutionId: string): Promise<SavedReply[]> {
  return selectSavedReplies(db, institutionId);
}

/** One saved reply of the institution; another institution's is not_found like an unknown id. */
export async function getSavedReply(db: Db, institutionId: string, id: string): Promise<SavedReply> {
  const found = uuidPattern.test(id) ? await selectSavedReply(db, institutionId, id) : undefined;
  if (!found) throw notFound();
  return found;
}

/** Saves a new reply (at most MAX_SAVED_REPLIES per institution, names unique). */
export async function createSavedReply(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  input: SavedReplyInput,
): Promise<SavedReply> {
  const value = check(input);
  return db.transaction(async (tx) => {
    if ((await countSavedReplies(tx, institutionId)) >= MAX_SAVED_REPLIES)
      throw new ApiError('invalid_request', {
        detail: `an institution keeps at most ${MAX_SAVED_REPLIES} saved replies: delete one first`,
      });
    return uniqueName(value.name, () => insertSavedReply(tx, institutionId, { ...value, now: clock.now() }));
  });
}

/** Changes a saved reply's name or text. */
export async function changeSavedReply(
  { db, clock }: Pick<Deps, 'db' | 'clock'>,
  institutionId: string,
  id: string,
  input: SavedReplyInput,
): Promise<SavedReply> {
  const value = check(input);
  if (!uuidPattern.test(id)) throw notFound();
  const updated = await uniqueName(value.name, () =>
    updateSavedReply(db, institutionId, id, { ...value, now: clock.now() }),
  );
  if (!updated) throw notFound();
  return updated;
}

/** Deletes a saved reply. */
export async function removeSavedReply(db: Db, institutionId: string, id: string): Promise<void> {
  if (!uuidPattern.test(id) || !(await deleteSavedReply(db, institutionId, id))) throw notFound();
}
