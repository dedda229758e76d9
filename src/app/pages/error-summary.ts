// The error summary of a console form (the GOV.UK pattern the student app also follows): when a
// page shows problems next to its fields, a box at the top of the page lists them all, each a
// link to its field, so a person sees at once how many there are and can go to each.
//
// Built from the page as rendered rather than by each template: every field's problem is a
// `<p class="field-error" id="<input id>-error">` (the convention of every console form), so one
// function serves every form, and a form cannot forget its summary.

/** Where the layout wants the summary: the top of the main content. */
export const SUMMARY_MARK = '<!-- error-summary -->';

const FIELD_ERROR = /<p class="field-error" id="([^"]+)-error">([\s\S]*?)<\/p>/g;

/** The page with its summary in place of the mark (and the mark gone either way). */
export function withErrorSummary(html: string): string {
  if (!html.includes(SUMMARY_MARK)) return html;
  const items = [...html.matchAll(FIELD_ERROR)].map(([, id, message]) => {
    // A field that is a group of checkboxes has no element of that id: the link goes to its message.
    const target = html.includes(`id="${id}"`) ? id : `${id}-error`;
    return `<li><a href="#${target}">${message.trim()}</a></li>`;
  });
  const summary = items.length
    ? `<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1">
  <h2 id="error-summary-title">There ${items.length === 1 ? 'is a problem' : `are ${items.length} problems`}</h2>
  <ul>${items.join('')}</ul>
</div>`
    : '';
  return html.replace(SUMMARY_MARK, summary);
}
