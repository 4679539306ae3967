import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDay, formatPrice, formatAmount } from './format';

const WIDTH_FALLBACK = 720;

function width(container: HTMLElement): number {
  return Math.max(320, Math.floor(container.clientWidth || WIDTH_FALLBACK));
}

/** A line of (unix seconds, value) points; `label` names the series in the legend. */
export function lineChart(container: HTMLElement, times: number[], values: (number | null)[], label: string): uPlot {
  return new uPlot(
    {
      width: width(container),
      height: 280,
      scales: { x: { time: true } },
      series: [{}, { label, stroke: '#2563eb', width: 2, points: { show: times.length < 60 }, value: (_u, v) => (v === null ? '—' : formatPrice(v)) }],
      axes: [{}, { size: 80, values: (_u, ticks) => ticks.map((t) => formatPrice(t)) }],
    },
    [times, values],
    container,
  );
}

/** Daily bars of (unix seconds, value). */
export function barChart(container: HTMLElement, times: number[], values: number[], label: string): uPlot {
  const bars = uPlot.paths.bars!({ size: [0.6, 80] });
  return new uPlot(
    {
      width: width(container),
      height: 220,
      scales: { x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] } },
      series: [
        { value: (_u, v) => (v === null ? '—' : formatDay(v)) },
        {
          label,
          stroke: '#0f766e',
          fill: 'rgba(15, 118, 110, 0.45)',
          paths: bars,
          points: { show: false },
          value: (_u, v) => (v === null ? '—' : formatAmount(v)),
        },
      ],
      axes: [
        { incrs: [86_400, 2 * 86_400, 7 * 86_400], space: 90, values: (_u, ticks) => ticks.map((t) => formatDay(t)) },
        { size: 80, values: (_u, ticks) => ticks.map((t) => formatAmount(t)) },
      ],
    },
    [times, values],
    container,
  );
}
