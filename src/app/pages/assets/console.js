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
// A form sent back with problems: the summary at the top takes the focus, so a screen reader reads
// it first and the keyboard starts from it (its links lead to the fields).
document.querySelector('.error-summary')?.focus();
