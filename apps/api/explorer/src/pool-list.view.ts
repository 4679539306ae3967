import type { Cluster, Pool, PoolListResponse } from '@hadron/client';
import { CLUSTERS, isCluster, listPools, SORT_FIELDS, type Loaded, type SortField } from './api';
import { clear, errorBox, h, tokenIcon } from './dom';
import { formatAmount, formatInteger, formatPrice, shortAddress } from './format';
import { freshnessView } from './freshness.view';

const PAGE_SIZE = 20;
const SEARCH_DELAY_MS = 300;
const SORT_LABELS: Record<SortField, string> = { tvl: 'TVL', volume_24h: '24h volume', fees_24h: '24h fees' };

export interface ListState {
  cluster: Cluster;
  query: string;
  sortField: SortField;
  sortDir: 'asc' | 'desc';
  page: number;
}

/** The list's state from the hash's query (`#/?cluster=devnet&query=sol&sort_by=tvl:asc&page=2`); defaults as the API's. */
export function parseListState(params: URLSearchParams): ListState {
  const cluster = params.get('cluster');
  const [field, dir] = (params.get('sort_by') ?? '').split(':');
  const page = Number(params.get('page'));
  return {
    cluster: isCluster(cluster) ? cluster : 'mainnet-beta',
    query: params.get('query') ?? '',
    sortField: SORT_FIELDS.includes(field as SortField) ? (field as SortField) : 'volume_24h',
    sortDir: dir === 'asc' ? 'asc' : 'desc',
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

function stateHash(s: ListState): string {
  const p = new URLSearchParams({ cluster: s.cluster, sort_by: `${s.sortField}:${s.sortDir}`, page: String(s.page) });
  if (s.query) p.set('query', s.query);
  return `#/?${p.toString()}`;
}

/** A cell showing a number with its unit; the exact value the API sent is in data-value. */
function valueCell(value: number | null, text: string, unit: string, field: string): HTMLTableCellElement {
  return h(
    'td',
    { class: 'num', 'data-field': field, 'data-value': value === null ? '' : String(value) },
    text,
    value === null ? null : h('span', { class: 'unit' }, ` ${unit}`),
  );
}

function poolRow(pool: Pool, cluster: Cluster): HTMLTableRowElement {
  const quote = pool.token_y.symbol;
  return h(
    'tr',
    { 'data-address': pool.address },
    h(
      'th',
      { scope: 'row', 'data-field': 'name' },
      h(
        'a',
        { href: `#/pools/${cluster}/${encodeURIComponent(pool.address)}`, class: 'pool-link' },
        tokenIcon(pool.token_x.icon, pool.token_x.symbol),
        tokenIcon(pool.token_y.icon, quote),
        h('span', { class: 'pool-name' }, pool.name),
      ),
      h('span', { class: 'address', title: pool.address }, shortAddress(pool.address)),
    ),
    valueCell(pool.current_price, formatPrice(pool.current_price), quote, 'price'),
    valueCell(pool.tvl, formatAmount(pool.tvl), quote, 'tvl'),
    valueCell(pool.volume['24h'], formatAmount(pool.volume['24h']), quote, 'volume_24h'),
    valueCell(pool.fees['24h'], formatAmount(pool.fees['24h']), quote, 'fees_24h'),
    h('td', { 'data-field': 'state' }, pool.pool_config.pool_state),
  );
}

/**
 * The pool table: search (`query`), sort (`sort_by`, by the column buttons), cluster switch and
 * pages, all answered by GET /pools. Its state is kept in the URL's hash, so back and reload keep it.
 */
export function renderPoolList(root: HTMLElement, initial: ListState, alive: () => boolean): void {
  const state: ListState = { ...initial };
  let seq = 0;
  let searchTimer: number | undefined;

  const search = h('input', {
    type: 'search',
    id: 'pool-search',
    name: 'query',
    placeholder: 'name, symbol, mint or pool address',
    autocomplete: 'off',
    value: state.query,
  });
  const cluster = h('select', { id: 'cluster', name: 'cluster' }, ...CLUSTERS.map((c) => h('option', { value: c, selected: c === state.cluster }, c)));
  const form = h(
    'form',
    { role: 'search', class: 'controls' },
    h('label', { for: 'pool-search' }, 'Search pools'),
    search,
    h('button', { type: 'submit' }, 'Search'),
    h('label', { for: 'cluster' }, 'Cluster'),
    cluster,
  );
  const caption = h('caption', {});
  const headRow = h('tr', {});
  const tbody = h('tbody', {});
  const table = h('table', { class: 'pools', 'data-testid': 'pool-table' }, caption, h('thead', {}, headRow), tbody);
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const prev = h('button', { type: 'button' }, 'Previous page');
  const next = h('button', { type: 'button' }, 'Next page');
  const pageInfo = h('span', { 'data-testid': 'page-info' });
  const freshness = h('div', {});
  clear(root);
  root.append(
    h('h1', {}, 'Pools'),
    form,
    status,
    h('div', { class: 'table-wrap' }, table),
    h('nav', { class: 'pager', 'aria-label': 'Pages' }, prev, pageInfo, next),
    freshness,
  );

  function header(): void {
    clear(headRow);
    headRow.append(h('th', { scope: 'col' }, 'Pool'), h('th', { scope: 'col', class: 'num' }, 'Price'));
    for (const field of SORT_FIELDS) {
      const active = state.sortField === field;
      const sort = active ? (state.sortDir === 'asc' ? 'ascending' : 'descending') : 'none';
      const label = `${SORT_LABELS[field]}${active ? (state.sortDir === 'asc' ? ' ▲' : ' ▼') : ''}`;
      headRow.append(
        h(
          'th',
          { scope: 'col', class: 'num', 'aria-sort': sort },
          h('button', { type: 'button', class: 'sort', 'data-sort': field, onclick: () => sortBy(field), title: `Sort by ${SORT_LABELS[field]}` }, label),
        ),
      );
    }
    headRow.append(h('th', { scope: 'col' }, 'State'));
  }

  function sortBy(field: SortField): void {
    state.sortDir = state.sortField === field && state.sortDir === 'desc' ? 'asc' : 'desc';
    state.sortField = field;
    state.page = 1;
    void load();
  }

  function show(result: Loaded<PoolListResponse>): void {
    const list = result.data;
    clear(tbody);
    if (list.data.length === 0) {
      const why = state.query ? `No pools on ${state.cluster} match “${state.query}”.` : `No pools indexed on ${state.cluster} yet.`;
      tbody.append(h('tr', { class: 'empty' }, h('td', { colspan: 6 }, why)));
    } else {
      for (const pool of list.data) tbody.append(poolRow(pool, state.cluster));
    }
    table.setAttribute('data-total', String(list.total));
    pageInfo.textContent = list.total === 0 ? 'No pools' : `Page ${list.current_page} of ${list.pages} · ${formatInteger(list.total)} pools`;
    prev.disabled = list.current_page <= 1;
    next.disabled = list.current_page >= list.pages;
    clear(freshness);
    freshness.append(freshnessView(result.freshness));
  }

  async function load(): Promise<void> {
    const mine = ++seq;
    history.replaceState(null, '', stateHash(state));
    header();
    caption.textContent = `Pools on ${state.cluster}, by ${SORT_LABELS[state.sortField]} ${state.sortDir === 'asc' ? 'ascending' : 'descending'}${state.query ? `, matching “${state.query}”` : ''}`;
    status.textContent = 'Loading…';
    table.setAttribute('aria-busy', 'true');
    try {
      const result = await listPools({
        cluster: state.cluster,
        query: state.query || undefined,
        sort_by: `${state.sortField}:${state.sortDir}`,
        page: state.page,
        page_size: PAGE_SIZE,
      });
      if (mine !== seq || !alive()) return; // a newer request (or another page) took over
      show(result);
      status.textContent = '';
    } catch (e) {
      if (mine !== seq || !alive()) return;
      clear(tbody);
      status.textContent = '';
      tbody.append(h('tr', { class: 'empty' }, h('td', { colspan: 6 }, errorBox(`Could not load pools. ${(e as Error).message}`))));
    } finally {
      if (mine === seq) table.setAttribute('aria-busy', 'false');
    }
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    window.clearTimeout(searchTimer);
    state.query = search.value.trim();
    state.page = 1;
    void load();
  });
  search.addEventListener('input', () => {
    window.clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => {
      if (search.value.trim() === state.query) return;
      state.query = search.value.trim();
      state.page = 1;
      void load();
    }, SEARCH_DELAY_MS);
  });
  cluster.addEventListener('change', () => {
    state.cluster = cluster.value as Cluster;
    state.page = 1;
    void load();
  });
  prev.addEventListener('click', () => {
    state.page = Math.max(1, state.page - 1);
    void load();
  });
  next.addEventListener('click', () => {
    state.page += 1;
    void load();
  });
  void load();
}
