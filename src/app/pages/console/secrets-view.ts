// What the secrets pages show, built from the secrets domain's own types by pure functions: both
// secrets' states (the help-sync secret only for those who hold Manage integrations), a secret
// just issued (shown once), and the confirmation asked before replacing or revoking one.
import type { HelpSyncSecretStatus, RosterSecretStatus } from '../../../domain/secrets/schemas.ts';
import { when } from './forms.ts';

/** The secrets page; `sync` is undefined for a caller who may not see the help-sync secret. */
export function secretsView(roster: RosterSecretStatus, sync: HelpSyncSecretStatus | undefined) {
  return { title: 'Secrets', roster, sync, when, overlapChoices };
}

/** A secret just issued, shown this once. */
export function secretShownView(which: 'roster secret' | 'help-sync secret', secret: string, back: string) {
  return { title: `New ${which}`, which, secret, back };
}

/** The confirmations of the actions that replace or revoke a working secret, by the action's path. */
export const secretConfirmations = {
  roster: {
    title: 'Replace the roster secret?',
    message:
      'Issuing a new roster secret revokes the current one at once: the SIS stops being able to push until it is given the new secret.',
    button: 'Issue a new secret and revoke the current one',
  },
  'roster/revoke': {
    title: 'Revoke the roster secret?',
    message:
      'The roster feed closes at once, with no fallback: every push is refused until a new secret is issued.',
    button: 'Revoke the roster secret',
  },
  'help-sync/rotate': {
    title: 'Rotate the help-sync secret?',
    message: 'The current help-sync secret stops working at once; the help desk must be given the new one.',
    button: 'Rotate the help-sync secret',
  },
  'help-sync/revoke': {
    title: 'Revoke the help-sync secret?',
    message: 'The help-desk sync is refused at once until a new secret is issued.',
    button: 'Revoke the help-sync secret',
  },
} as const;

export type SecretAction = keyof typeof secretConfirmations;

/** The overlap choices of a new roster secret: how long the current one keeps working. */
export const overlapChoices = [
  { days: 0, label: 'At once' },
  { days: 1, label: 'After 1 day' },
  { days: 3, label: 'After 3 days' },
  { days: 7, label: 'After 7 days' },
] as const;

/** The overlap a form chose (0 when absent or not one of the choices: the API's default). */
export function overlapOf(value: unknown): number {
  return overlapChoices.find((c) => String(c.days) === value)?.days ?? 0;
}

/** The confirmation page of an action on the secrets page at `page` (a new roster secret's overlap kept). */
export function secretConfirmView(action: SecretAction, page: string, overlapDays = 0) {
  if (action === 'roster' && overlapDays > 0)
    return {
      title: 'Issue a new roster secret?',
      message: `A new roster secret is issued and shown once. The current one keeps working beside it for ${overlapDays} ${overlapDays === 1 ? 'day' : 'days'}, so the SIS can be switched in that time; after that only the new one works. Each secret's last use is shown on this page.`,
      button: 'Issue a new secret',
      action: `${page}/${action}`,
      back: page,
      fields: { previous_secret_valid_days: String(overlapDays) },
    };
  return { ...secretConfirmations[action], action: `${page}/${action}`, back: page };
}
