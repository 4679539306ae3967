import type { Cluster, FeesReport, Pool, Token } from '@hadron/client';
import type uPlot from 'uplot';
import { FEE_WINDOWS, getPool, midpriceHistory, poolFees, TIMEFRAMES, volumeHistory, type FeeWindow, type Timeframe } from './api';
import { barChart, lineChart } from './charts';
import { clear, errorBox, h, tokenIcon } from './dom';
import { formatAmount, formatAtoms, formatDay, formatInteger, formatPpm, formatPrice, formatTime } from './format';
import { freshnessView } from './freshness.view';

const DEFAULT_TIMEFRAME: Timeframe = '5m';
const DEFAULT_SPLIT_WINDOW: FeeWindow = '24h';

function stat(label: string, value: string, field: string, exact: number | string | null): HTMLElement {
  return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', { 'data-field': field, 'data-value': exact ?? '' }, value));
}

function tokenRow(side: string, token: Token, amount: number | string): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-side': side },
    h('th', { scope: 'row' }, side),
    h('td', {}, tokenIcon(token.icon, token.symbol), h('strong', {}, token.symbol), ' ', h('span', { class: 'muted' }, token.name)),
    h('td', { class: 'mono' }, token.address),
    h('td', { class: 'num' }, String(token.decimals)),
    h(
      'td',
      { class: 'num', 'data-field': 'vault', 'data-raw': String(amount) },
      `${formatAtoms(amount, token.decimals)} `,
      h('span', { class: 'unit' }, token.symbol),
    ),
  );
}

function section(title: string, id: string, ...children: (Node | null)[]): HTMLElement {
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

/** A row of toggle buttons (aria-pressed), one pressed. */
function toggleGroup<T extends string>(
  label: string,
  values: readonly T[],
  selected: T,
  onSelect: (v: T) => void,
): { el: HTMLElement; select: (v: T) => void } {
  const buttons = values.map((v) =>
    h('button', { type: 'button', 'data-value': v, 'aria-pressed': v === selected ? 'true' : 'false', onclick: () => onSelect(v) }, v),
  );
  const select = (v: T) => buttons.forEach((b) => b.setAttribute('aria-pressed', b.dataset.value === v ? 'true' : 'false'));
  return { el: h('div', { class: 'toggle', role: 'group', 'aria-label': label }, ...buttons), select };
}

/**
 * One pool: tokens and vault balances, midprice history (timeframe switch), daily volume bars,
 * fees per window with the per-recipient split of the protocol fee, and how fresh the data is.
 */
export function renderPoolPage(root: HTMLElement, cluster: Cluster, address: string, alive: () => boolean): void {
  clear(root);
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' }, 'Loading pool…');
  root.append(h('a', { href: `#/?cluster=${cluster}`, class: 'back' }, `← All pools on ${cluster}`), status);

  getPool(cluster, address)
    .then(({ data: pool, freshness }) => {
      if (!alive()) return;
      status.textContent = '';
      if (!pool) {
        root.append(errorBox(`No pool ${address} on ${cluster}.`));
        return;
      }
      document.title = `${pool.name} — Hadron Pool Analytics`;
      root.append(
        summary(pool, cluster),
        freshnessView(freshness),
        tokens(pool),
        midprice(pool, cluster, alive),
        volume(pool, cluster, alive),
        fees(pool, cluster, alive),
      );
    })
    .catch((e: Error) => {
      if (!alive()) return;
      status.textContent = '';
      root.append(errorBox(`Could not load the pool. ${e.message}`));
    });
}

function summary(pool: Pool, cluster: Cluster): HTMLElement {
  const q = pool.token_y.symbol;
  return h(
    'header',
    { class: 'pool-header' },
    h('h1', { 'data-testid': 'pool-name' }, pool.name),
    h('p', { class: 'mono', 'data-testid': 'pool-address' }, pool.address),
    h(
      'p',
      { class: 'muted' },
      `Cluster ${cluster} · state ${pool.pool_config.pool_state} · base spread ${pool.pool_config.base_spread_bps === null ? 'unknown' : `${formatPrice(pool.pool_config.base_spread_bps)} bps`}`,
    ),
    h(
      'dl',
      { class: 'stats' },
      stat(`Price (${q} per ${pool.token_x.symbol})`, formatPrice(pool.current_price), 'price', pool.current_price),
      stat(`TVL (${q})`, formatAmount(pool.tvl), 'tvl', pool.tvl),
      stat(`24h volume (${q})`, formatAmount(pool.volume['24h']), 'volume_24h', pool.volume['24h']),
      stat(`24h fees (${q})`, formatAmount(pool.fees['24h']), 'fees_24h', pool.fees['24h']),
    ),
  );
}

function tokens(pool: Pool): HTMLElement {
  return section(
    'Tokens and vaults',
    'tokens-title',
    h(
      'table',
      { 'data-testid': 'tokens' },
      h('thead', {}, h('tr', {}, ...['Side', 'Token', 'Mint', 'Decimals', 'Vault balance'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, tokenRow('Base (X)', pool.token_x, pool.token_x_amount), tokenRow('Quote (Y)', pool.token_y, pool.token_y_amount)),
    ),
  );
}

function midprice(pool: Pool, cluster: Cluster, alive: () => boolean): HTMLElement {
  const dx = pool.token_x.decimals;
  const dy = pool.token_y.decimals;
  const scale = 10 ** (dx - dy);
  const chart = h('div', { class: 'chart', 'data-testid': 'midprice-chart', role: 'img', 'aria-label': `Midprice of ${pool.name}` });
  const note = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  let plot: uPlot | undefined;
  let seq = 0;
  const load = (tf: Timeframe) => {
    const mine = ++seq;
    toggle.select(tf);
    note.textContent = 'Loading…';
    chart.setAttribute('aria-busy', 'true');
    midpriceHistory(cluster, pool.address, tf)
      .then(({ data }) => {
        if (!alive() || mine !== seq) return;
        plot?.destroy();
        plot = undefined;
        clear(chart);
        // Oldest first for the chart, whatever order the API lists them in.
        const points = [...data.data].sort((a, b) => a.timestamp - b.timestamp);
        chart.setAttribute('data-timeframe', tf);
        chart.setAttribute('data-points', String(points.length));
        chart.setAttribute('data-last-midprice', points.length ? String(points[points.length - 1].midprice) : '');
        note.textContent = points.length
          ? `${points.length} samples (${tf}) from ${formatTime(points[0].timestamp)} to ${formatTime(points[points.length - 1].timestamp)}`
          : `No midprice updates between ${formatTime(data.start_time)} and ${formatTime(data.end_time)}.`;
        if (points.length)
          plot = lineChart(
            chart,
            points.map((p) => p.timestamp),
            points.map((p) => (p.midprice === null ? null : p.midprice * scale)),
            `${pool.token_y.symbol} per ${pool.token_x.symbol}`,
          );
      })
      .catch((e: Error) => {
        if (!alive() || mine !== seq) return;
        note.textContent = '';
        clear(chart);
        chart.append(errorBox(`Could not load the midprice history. ${e.message}`));
      })
      .finally(() => chart.setAttribute('aria-busy', 'false'));
  };
  const toggle = toggleGroup('Timeframe', TIMEFRAMES, DEFAULT_TIMEFRAME, load);
  load(DEFAULT_TIMEFRAME);
  return section(
    'Midprice history (last 24 h)',
    'midprice-title',
    h('div', { class: 'row' }, h('span', { class: 'muted' }, 'Sample every'), toggle.el),
    h(
      'p',
      { class: 'muted', 'data-testid': 'price-formula' },
      `Human price = midprice × 10^(decimals_x − decimals_y) = midprice × 10^(${dx} − ${dy}), in ${pool.token_y.symbol} per ${pool.token_x.symbol}.`,
    ),
    chart,
    note,
  );
}

function volume(pool: Pool, cluster: Cluster, alive: () => boolean): HTMLElement {
  const chart = h('div', { class: 'chart', 'data-testid': 'volume-chart', role: 'img', 'aria-label': `Daily volume of ${pool.name}` });
  const body = h('tbody', {});
  const details = h(
    'details',
    {},
    h('summary', {}, 'Daily values'),
    h(
      'table',
      { 'data-testid': 'volume-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Day (UTC)'),
          h('th', { scope: 'col', class: 'num' }, `Volume (${pool.token_y.symbol})`),
          h('th', { scope: 'col', class: 'num' }, `Fees (${pool.token_y.symbol})`),
        ),
      ),
      body,
    ),
  );
  const note = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' }, 'Loading…');
  volumeHistory(cluster, pool.address)
    .then(({ data }) => {
      if (!alive()) return;
      const days = [...data.data].sort((a, b) => a.timestamp - b.timestamp);
      chart.setAttribute('data-bars', String(days.length));
      for (const d of days) {
        body.append(
          h(
            'tr',
            { 'data-timestamp': d.timestamp },
            h('th', { scope: 'row' }, formatDay(d.timestamp)),
            h('td', { class: 'num', 'data-value': d.volume }, formatAmount(d.volume)),
            h('td', { class: 'num', 'data-value': d.fees }, formatAmount(d.fees)),
          ),
        );
      }
      note.textContent = days.length ? '' : `No swaps between ${formatTime(data.start_time)} and ${formatTime(data.end_time)}.`;
      if (days.length)
        barChart(
          chart,
          days.map((d) => d.timestamp),
          days.map((d) => d.volume),
          `Volume (${pool.token_y.symbol})`,
        );
    })
    .catch((e: Error) => {
      if (!alive()) return;
      note.textContent = '';
      chart.append(errorBox(`Could not load the volume history. ${e.message}`));
    });
  return section('Daily volume (last 7 days)', 'volume-title', chart, note, details);
}

function fees(pool: Pool, cluster: Cluster, alive: () => boolean): HTMLElement {
  const q = pool.token_y.symbol;
  const rows = h('tbody', {});
  const split = h('div', { 'data-testid': 'fee-split' });
  const reports = new Map<FeeWindow, FeesReport>();
  const failed = new Map<FeeWindow, string>();
  let selected = DEFAULT_SPLIT_WINDOW;
  const toggle = toggleGroup('Split window', FEE_WINDOWS, selected, (w) => {
    selected = w;
    toggle.select(w);
    showSplit();
  });

  function showSplit(): void {
    clear(split);
    split.setAttribute('data-window', selected);
    const report = reports.get(selected);
    if (failed.has(selected)) return void split.append(errorBox(failed.get(selected)!));
    if (!report) return void split.append(h('p', { class: 'status' }, 'Loading…'));
    if (report.protocol_fee_split.length === 0) {
      split.append(
        h(
          'p',
          { class: 'muted', 'data-testid': 'split-empty' },
          `No per-recipient split for ${selected}: the pool pays a single default recipient, or no fee-bearing split swap happened in this window.`,
        ),
      );
      return;
    }
    split.append(
      h(
        'table',
        { 'data-testid': 'split-table' },
        h('caption', {}, `Protocol fee by recipient, ${selected}`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Recipient', 'Share', `Fee (${q})`, `Fee ${pool.token_x.symbol} (atoms)`, `Fee ${q} (atoms)`].map((t, i) =>
              h('th', { scope: 'col', class: i ? 'num' : undefined }, t),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          ...report.protocol_fee_split.map((r) =>
            h(
              'tr',
              { 'data-recipient': r.recipient },
              h('th', { scope: 'row', class: 'mono' }, r.recipient),
              h('td', { class: 'num', 'data-field': 'ppm', 'data-value': r.ppm }, formatPpm(r.ppm)),
              h('td', { class: 'num', 'data-field': 'fee_usd', 'data-value': r.fee_usd }, formatAmount(r.fee_usd)),
              h('td', { class: 'num', 'data-field': 'fee_x_raw', 'data-value': r.fee_x_raw }, formatAmount(r.fee_x_raw)),
              h('td', { class: 'num', 'data-field': 'fee_y_raw', 'data-value': r.fee_y_raw }, formatAmount(r.fee_y_raw)),
            ),
          ),
        ),
      ),
    );
  }

  const cell = (field: string, value: number | string, text: string) => h('td', { class: 'num', 'data-field': field, 'data-value': String(value) }, text);
  for (const w of FEE_WINDOWS) {
    const row = h('tr', { 'data-window': w }, h('th', { scope: 'row' }, w), h('td', { colspan: 6, class: 'status' }, 'Loading…'));
    rows.append(row);
    poolFees(cluster, pool.address, w)
      .then(({ data: r }) => {
        if (!alive()) return;
        reports.set(w, r);
        const t = r.totals;
        row.replaceChildren(
          h(
            'th',
            { scope: 'row' },
            w,
            r.truncated ? h('span', { class: 'warn', title: 'More swaps than one query aggregates: a narrower window is complete' }, ' (partial)') : null,
          ),
          cell('volume_usd', t.volume_usd, formatAmount(t.volume_usd)),
          cell('spread_usd', t.spread_usd, formatAmount(t.spread_usd)),
          cell('protocol_fee_usd', t.protocol_fee_usd, formatAmount(t.protocol_fee_usd)),
          cell('protocol_fee_x_raw', t.protocol_fee_x_raw, formatAtoms(t.protocol_fee_x_raw, 0)),
          cell('protocol_fee_y_raw', t.protocol_fee_y_raw, formatAtoms(t.protocol_fee_y_raw, 0)),
          cell('swap_count', t.swap_count, formatInteger(t.swap_count)),
        );
      })
      .catch((e: Error) => {
        if (!alive()) return;
        failed.set(w, `Could not load fees for ${w}. ${e.message}`);
        row.replaceChildren(h('th', { scope: 'row' }, w), h('td', { colspan: 6 }, errorBox(failed.get(w)!)));
      })
      .finally(() => {
        if (alive() && w === selected) showSplit();
      });
  }
  showSplit();
  return section(
    'Fees by window',
    'fees-title',
    h(
      'table',
      { 'data-testid': 'fees-table' },
      h('caption', {}, `Windows end now; amounts in ${q} unless atoms`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[
            'Window',
            `Volume (${q})`,
            `Spread (${q})`,
            `Protocol fee (${q})`,
            `Protocol fee ${pool.token_x.symbol} (atoms)`,
            `Protocol fee ${q} (atoms)`,
            'Swaps',
          ].map((t, i) => h('th', { scope: 'col', class: i ? 'num' : undefined }, t)),
        ),
      ),
      rows,
    ),
    h('h3', {}, 'Protocol fee split'),
    h('div', { class: 'row' }, h('span', { class: 'muted' }, 'Window'), toggle.el),
    split,
  );
}
