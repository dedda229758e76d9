import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutArchivedForms } from './archived-forms.ts';

test("an archived institution's forms are taken out; sign-out, restore and reading filters stay", () => {
  const page = [
    '<form method="post" action="/auth/sign-out" class="signout" novalidate><button>Sign out</button></form>',
    '<form method="get" action="/console/uni/students" novalidate><input name="q"></form>',
    '<form method="post" action="/console/uni/webhooks" novalidate><input name="url"><button>Add</button></form>',
    '<form method="post" action="/console/uni/restore" novalidate><button>Restore</button></form>',
    '<form method="post" action="/console/other/webhooks" novalidate></form>',
  ].join('\n');
  const shown = withoutArchivedForms(page, 'uni');
  assert.match(shown, /action="\/auth\/sign-out"/);
  assert.match(shown, /action="\/console\/uni\/students"/);
  assert.match(shown, /action="\/console\/uni\/restore"/);
  assert.match(shown, /action="\/console\/other\/webhooks"/);
  assert.doesNotMatch(shown, /action="\/console\/uni\/webhooks"/);
  assert.match(shown, /Not while the institution is archived\./);
});
