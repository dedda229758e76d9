// Draws the push-history chart with uPlot from the table of numbers on the same page; without
// scripts (or before they load) the table is the chart.
(() => {
  const holder = document.getElementById('runs-chart');
  const table = holder && document.getElementById(holder.dataset.source);
  if (!holder || !table || typeof uPlot === 'undefined') return;
  const rows = [...table.tBodies[0].rows];
  const column = (i) => rows.map((row) => Number(row.cells[i].textContent));
  const days = rows.map((row) => Date.parse(`${row.cells[0].textContent}T00:00:00Z`) / 1000);
  const width = Math.max(320, holder.clientWidth || 600);
  new uPlot(
    {
      width,
      height: 240,
      series: [
        {},
        { label: 'Created', stroke: '#0b57d0', width: 2 },
        { label: 'Updated', stroke: '#146c2e', width: 2 },
        { label: 'Row errors', stroke: '#b3261e', width: 2 },
      ],
      axes: [{}, {}],
    },
    [days, column(2), column(3), column(4)],
    holder,
  );
})();
