// The shapes of the people of an institution and its identity provider, defined once: the admin
// API uses them as its request and response schemas and the console types its view models and
// checks its forms with them, so the two cannot drift apart.
import { type Static, Type } from 'typebox';
import { ClientCredentials, DateTime, DisplayName, Uuid } from '../../lib/schema.ts';
import { type Permission, permissions, type Role, roles } from '../access/policy.ts';

export const RoleSchema = Type.Union(
  roles.map((r) => Type.Literal(r)),
  { description: 'admin: runs the integrations and the people; staff: works help requests' },
);
export const PermissionSchema = Type.Union(
  permissions.map((p) => Type.Literal(p)),
  { description: 'manage_integrations: the help-sync secret and webhook endpoints (admins only)' },
);
const Email = Type.String({
  format: 'email',
  maxLength: 320,
  description: 'Matched case-insensitively at sign-in',
});

export const Person = Type.Object({
  id: Uuid(),
  email: Type.String(),
  name: Type.String(),
  roles: Type.Array(Type.String()),
  permissions: Type.Array(Type.String()),
  linked: Type.Boolean({
    description: 'Whether the person has signed in (their provider subject is linked)',
  }),
  last_sign_in_at: Type.Union([DateTime(), Type.Null()]),
  created_at: DateTime(),
  updated_at: DateTime(),
});
/** A person as answered and shown; the roles and permissions are the policy's. */
export type Person = Omit<Static<typeof Person>, 'roles' | 'permissions'> & {
  roles: Role[];
  permissions: Permission[];
};

/** What inviting a person takes. */
export const InviteBody = Type.Object(
  {
    email: Email,
    name: DisplayName({ minLength: 1, maxLength: 200 }),
    roles: Type.Array(RoleSchema, { minItems: 1, maxItems: 2 }),
    permissions: Type.Optional(Type.Array(PermissionSchema, { maxItems: 1 })),
    send_invitation: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          "Email the person a link to the institution's sign-in page (default true). The email is queued with " +
          'the person and sent by the notification worker; false for people told some other way.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type InviteBody = Static<typeof InviteBody>;

/** What changing a person takes; fields left out are kept. */
export const PersonChangeBody = Type.Object(
  {
    name: Type.Optional(DisplayName({ minLength: 1, maxLength: 200 })),
    roles: Type.Optional(Type.Array(RoleSchema, { minItems: 1, maxItems: 2 })),
    permissions: Type.Optional(Type.Array(PermissionSchema, { maxItems: 1 })),
  },
  { additionalProperties: false },
);
export type PersonChangeBody = Static<typeof PersonChangeBody>;

/** What adding a platform operator takes. */
export const NewOperatorBody = Type.Object(
  { email: Email, name: DisplayName({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const IdentityProvider = Type.Object({
  issuer: Type.String(),
  client_id: Type.String(),
  client_secret_set: Type.Literal(true, {
    description: 'The client secret is stored (encrypted); it is never returned',
  }),
  email_domains: Type.Array(Type.String()),
  links_held_since: Type.Union([DateTime(), Type.Null()], {
    description:
      'Set when the issuer was last changed by someone other than the platform operator: people and students ' +
      'who existed before then are not linked to an account at this issuer by their email until the operator ' +
      'confirms the issuer (POST …/identity-provider/confirmation); null when linking is open',
  }),
  created_at: DateTime(),
  updated_at: DateTime(),
});
export type IdentityProvider = Static<typeof IdentityProvider>;

/** What configuring an identity provider takes. */
export const ProviderBody = Type.Object(
  {
    issuer: Type.String({
      format: 'uri',
      maxLength: 500,
      description: 'https issuer URL; discovery is read from it at once',
    }),
    ...ClientCredentials(
      'Required the first time and whenever the issuer changes (the stored secret is never sent to another ' +
        'issuer); omit it to keep the stored one',
    ),
    email_domains: Type.Optional(
      Type.Array(Type.String({ maxLength: 253 }), {
        maxItems: 50,
        description:
          "Domains of the institution's email addresses: the sign-in page finds the institution by them. Set by " +
          'the operator only; each belongs to one institution. Omit to keep the stored ones.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ProviderBody = Static<typeof ProviderBody>;
