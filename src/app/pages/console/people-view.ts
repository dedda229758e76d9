// What the people pages show, built from the people domain's own types by pure functions: the
// people with the invite form and the identity provider's settings, a person's page, the forms'
// values as posted and as the domain takes them, and the confirmations of removing someone or
// ending their sessions.
import type { IdentityProvider, Person, ProviderBody } from '../../../domain/people/schemas.ts';
import { redirectUriOf } from '../../../domain/people/sign-in.ts';
import type { FieldText } from '../form-check.ts';
import { list, text, when } from './forms.ts';

/** How the people forms name their fields. */
export const personFields: Record<string, FieldText> = {
  email: { label: 'Email', hint: 'Enter an email address, such as name@example.edu' },
  name: { label: 'Name' },
  roles: {
    label: 'Roles',
    required: 'Choose a role: admin, staff or both',
    hint: 'Choose admin, staff or both',
  },
  permissions: { label: 'Permissions', hint: 'Choose among the permissions listed' },
};

export const providerFields: Record<string, FieldText> = {
  issuer: { label: 'Issuer URL', hint: 'Enter the issuer as a URL, such as https://sso.example.edu' },
  client_id: { label: 'Client id' },
  client_secret: { label: 'Client secret' },
  email_domains: { label: 'Email domains', hint: 'Enter at most 50 domains, separated by commas' },
};

/** The invite form as posted (shown again with the form when refused); also the domain's input. */
export function inviteValues(form: unknown) {
  return {
    email: text(form, 'email'),
    name: text(form, 'name'),
    roles: list(form, 'roles'),
    permissions: list(form, 'permissions'),
  };
}

/** A person's form as posted: their name, roles and permissions. */
export function personValues(form: unknown) {
  return { name: text(form, 'name'), roles: list(form, 'roles'), permissions: list(form, 'permissions') };
}

/** The provider form as posted (the client secret is never shown again). */
export function providerValues(form: unknown) {
  return {
    issuer: text(form, 'issuer'),
    client_id: text(form, 'client_id'),
    email_domains: text(form, 'email_domains'),
  };
}

/** What the provider form asks the domain for: an empty secret keeps the stored one. */
export function providerInput(values: ReturnType<typeof providerValues>, secret: string): ProviderBody {
  return {
    issuer: values.issuer,
    client_id: values.client_id,
    ...(secret ? { client_secret: secret } : {}),
    email_domains: values.email_domains
      .split(/[\s,]+/)
      .map((domain) => domain.trim())
      .filter(Boolean),
  };
}

/**
 * The people page: everyone, the invite form, and the identity provider (undefined: none yet)
 * with the full redirect URI to register there, at the service's public base URL.
 */
export function peopleView(
  people: readonly Person[],
  idp: IdentityProvider | undefined,
  publicBaseUrl = 'http://localhost:3000',
) {
  return {
    title: 'People',
    people,
    idp,
    redirectUri: redirectUriOf(publicBaseUrl),
    invite: { roles: ['staff'], permissions: [] } as Partial<ReturnType<typeof inviteValues>>,
    provider: {
      issuer: idp?.issuer ?? '',
      client_id: idp?.client_id ?? '',
      email_domains: (idp?.email_domains ?? []).join(', '),
    },
    errors: {} as Record<string, string>,
    providerErrors: {} as Record<string, string>,
    when,
  };
}

/** A person's page, with their form filled in from the record. */
export function personView(person: Person, back: string) {
  return {
    title: person.name,
    person,
    values: person as { name: string; roles: readonly string[]; permissions: readonly string[] },
    errors: {} as Record<string, string>,
    back,
    when,
  };
}

/** The confirmation of removing a person or ending their sessions; `page` is the people page. */
export function personConfirmView(person: Person, action: 'remove' | 'sessions', page: string) {
  const remove = action === 'remove';
  return {
    title: remove ? `Remove ${person.name}?` : `End ${person.name}’s sessions?`,
    message: remove
      ? `${person.name} (${person.email}) loses access at once: their sessions end and their sign-in link goes. Invite them again to undo.`
      : `${person.name} is signed out everywhere and must sign in again.`,
    action: `${page}/${person.id}/${action}`,
    button: remove ? 'Remove this person' : 'End their sessions',
    back: `${page}/${person.id}`,
  };
}
