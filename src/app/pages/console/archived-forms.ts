// An archived institution's pages show no form that can only fail: every change to it is refused
// (409 institution_archived, docs/archiving.md) but archiving and restoring it, so a form posting
// to its console is taken out of the page as rendered, and a sentence says why where it stood.
// Done once for every page rather than in each template, so a new form cannot forget it.

const POST_FORM = /<form method="post" action="([^"]*)"[\s\S]*?<\/form>/g;

/** The page without its forms that post to the archived institution's console (restore aside). */
export function withoutArchivedForms(html: string, slug: string): string {
  const own = `/console/${slug}/`;
  return html.replace(POST_FORM, (form, action: string) =>
    action.startsWith(own) && !/\/(archive|restore)$/.test(action)
      ? '<p class="muted archived-form">Not while the institution is archived.</p>'
      : form,
  );
}
