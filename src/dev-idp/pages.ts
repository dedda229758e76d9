// The development identity provider's only page: a list of demo people as buttons, and a cancel
// button. Plain HTML forms, so a test drives it with fetch and a browser needs no script.

export interface DevPerson {
  /** The subject (`sub`) the provider asserts; stable across email changes. */
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => escapes[c]);

export function choosePersonPage(input: {
  loginAction: string;
  abortAction: string;
  clientId: string;
  people: readonly DevPerson[];
}): string {
  const buttons = input.people
    .map(
      (person) =>
        `<li><button type="submit" name="sub" value="${escapeHtml(person.sub)}">` +
        `${escapeHtml(person.name)} <small>${escapeHtml(person.email)}` +
        `${person.email_verified ? '' : ' (email not verified)'}</small></button></li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Development sign-in</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; }
.warning { background: #fff3cd; border: 1px solid #c69500; padding: .5rem 1rem; }
ul { list-style: none; padding: 0; }
li { margin: .5rem 0; }
button { font: inherit; width: 100%; text-align: left; padding: .5rem 1rem; cursor: pointer; }
small { color: #555; margin-left: .5rem; }
</style>
</head>
<body>
<p class="warning"><strong>Development identity provider.</strong> Never use it in production:
anyone who reaches it can sign in as anyone listed.</p>
<h1>Sign in to ${escapeHtml(input.clientId)} as</h1>
<form method="post" action="${escapeHtml(input.loginAction)}" id="login">
<ul>
${buttons}
</ul>
</form>
<form method="post" action="${escapeHtml(input.abortAction)}" id="abort">
<button type="submit">Cancel</button>
</form>
</body>
</html>
`;
}
