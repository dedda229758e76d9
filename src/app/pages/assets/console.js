// Progressive enhancement of the console: nothing here is needed for a page to work.
// Copy buttons: a button with data-copy="<id>" copies that input's value.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const field = document.getElementById(button.getAttribute('data-copy'));
  if (!field || !navigator.clipboard) return;
  navigator.clipboard.writeText(field.value).then(
    () => {
      button.textContent = 'Copied';
    },
    () => {
      field.select();
    },
  );
});
// Copy buttons are shown only where scripts run (without them, select the text by hand).
for (const button of document.querySelectorAll('[data-copy][hidden]')) button.hidden = false;

// The live inbox: the rows (crisis panel, table, pager) are fetched again every 5 seconds from
// the address the page names (data-live, the same filters and page) and put in place of the old
// ones, so filters and the scroll position stay. A crisis request that was not there before is
// announced in the page's live region; a link that had the keyboard's focus gets it back.
(() => {
  const region = document.getElementById('inbox-live');
  const announce = document.getElementById('inbox-announce');
  if (!region || !announce || !window.fetch) return;
  const url = region.getAttribute('data-live');
  const crisisIds = (root) =>
    new Set([...root.querySelectorAll('[data-crisis-id]')].map((row) => row.getAttribute('data-crisis-id')));
  let seen = crisisIds(region);
  for (const note of document.querySelectorAll('[data-live-note]')) note.hidden = false;
  let busy = false;
  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      const response = await fetch(url, { headers: { accept: 'text/html' }, credentials: 'same-origin' });
      if (!response.ok || response.redirected) return;
      const holder = document.createElement('div');
      holder.innerHTML = await response.text();
      const focused =
        document.activeElement && region.contains(document.activeElement)
          ? document.activeElement.getAttribute('href')
          : null;
      const fresh = crisisIds(holder);
      const added = [...fresh].filter((id) => !seen.has(id));
      region.replaceChildren(...holder.childNodes);
      seen = fresh;
      if (focused) region.querySelector(`a[href="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
      if (added.length) {
        const first = region.querySelector(`[data-crisis-id="${CSS.escape(added[0])}"] a`);
        const what = first ? `: ${first.textContent}` : '';
        announce.textContent =
          added.length === 1 ? `New crisis request${what}` : `${added.length} new crisis requests`;
      }
    } catch {
      // Offline or the server restarting: the next round tries again.
    } finally {
      busy = false;
    }
  }
  setInterval(refresh, 5000);
})();

// A form sent back with problems: the summary at the top takes the focus, so a screen reader reads
// it first and the keyboard starts from it (its links lead to the fields).
document.querySelector('.error-summary')?.focus();
