// The demo people and client of `ssp dev-idp`. The students' emails are the ones the roster
// example in docs/roster-sync.md pushes, so a roster pushed from the docs makes them linkable;
// the staff need inviting by these emails (docs/sign-in.md).
import type { DevClient } from './dev-idp.ts';
import type { DevPerson } from './pages.ts';

export const DEMO_PEOPLE: readonly DevPerson[] = [
  {
    sub: 'demo-admin',
    email: 'admin@example.edu',
    email_verified: true,
    name: 'Alex Admin (institution admin)',
  },
  {
    sub: 'demo-integrations',
    email: 'integrations@example.edu',
    email_verified: true,
    name: 'Ira Integrations (admin with manage_integrations)',
  },
  { sub: 'demo-staff', email: 'staff@example.edu', email_verified: true, name: 'Sam Staff (staff)' },
  {
    sub: 'demo-ana',
    email: 'ana.lima@student.example.edu',
    email_verified: true,
    name: 'Ana Lima (student)',
  },
  {
    sub: 'demo-ben',
    email: 'ben.okafor@student.example.edu',
    email_verified: true,
    name: 'Ben Okafor (student)',
  },
];

export const DEMO_CLIENT_ID = 'ssp-dev';
/** Fixed, so settings saved once keep working after a restart; it protects nothing. */
export const DEMO_CLIENT_SECRET = 'ssp-dev-secret-development-only-never-in-production';

export function demoClient(publicBaseUrl: string): DevClient {
  return {
    client_id: DEMO_CLIENT_ID,
    client_secret: DEMO_CLIENT_SECRET,
    redirect_uris: [`${publicBaseUrl.replace(/\/+$/, '')}/auth/callback`],
  };
}
