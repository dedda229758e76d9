// Progressive enhancement of the student pages: times are written by the server in the
// institution's time zone; rewrite each <time data-local> in the browser's own time zone.
// Without scripts the server's text stays.
(() => {
  const day = new Intl.DateTimeFormat(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  });
  const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
  for (const element of document.querySelectorAll('time[data-local]')) {
    const start = new Date(element.getAttribute('datetime'));
    if (Number.isNaN(start.getTime())) continue;
    const endText = element.getAttribute('data-end');
    const end = endText ? new Date(endText) : undefined;
    let text = `${day.format(start)}, ${time.format(start)}`;
    if (end && !Number.isNaN(end.getTime())) {
      text +=
        day.format(end) === day.format(start)
          ? `–${time.format(end)}`
          : ` to ${day.format(end)}, ${time.format(end)}`;
    }
    element.textContent = text;
  }
})();
