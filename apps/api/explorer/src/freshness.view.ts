import type { Freshness } from '@hadron/client';
import { h } from './dom';
import { formatInteger, formatTime } from './format';

/**
 * How current the shown data is, from the response headers: every transaction up to the indexed
 * slot is in, the newest of them has this block time, and the index is this far behind the chain.
 */
export function freshnessView(f: Freshness): HTMLElement {
  const lag = f.lagSeconds === null ? 'unknown' : `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(f.lagSeconds)} s`;
  return h(
    'section',
    {
      class: 'freshness',
      'aria-label': 'Data freshness',
      'data-testid': 'freshness',
      'data-slot': f.slot ?? '',
      'data-time': f.time ?? '',
      'data-lag-seconds': f.lagSeconds ?? '',
    },
    h('span', { class: f.lagSeconds !== null && f.lagSeconds > 60 ? 'stale' : 'fresh' }, f.slot === null ? 'Freshness unknown' : 'Indexed'),
    h('span', {}, 'slot ', h('strong', { 'data-field': 'slot' }, f.slot === null ? 'unknown' : formatInteger(f.slot))),
    h('span', {}, 'block time ', h('strong', { 'data-field': 'time' }, f.time === null ? 'unknown' : formatTime(f.time))),
    h('span', {}, 'lag ', h('strong', { 'data-field': 'lag' }, lag)),
  );
}
