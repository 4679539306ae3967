import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser, type HTTPResponse, type Page } from 'puppeteer-core';
import { waitFor } from '../indexer/indexer-harness';
import { freePort, getJson, ready, signalGroup, startScript, type Started } from '../pipeline/support/app-process';

/**
 * THE EXPLORER PAGE IN A REAL BROWSER: `npm run demo` started as a user starts it (its own process
 * group, build included, the simulated cluster's demo data), then Debian's Chromium loads `/`.
 * The page's table, charts and tables must show what the API answered — the very responses the
 * page received (the demo is live: the numbers move between two requests), and where the answer is
 * stable (which pools match a search, a cluster), the API asked directly. Any console error, failed
 * request or CSP violation fails the test. Screenshots go to test-results/screenshots/ (git-ignored).
 *
 * Needs Chromium (/usr/bin/chromium, or CHROMIUM_PATH): skipped without it, unless REQUIRE_BROWSER=1 (CI).
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
if (!HAVE_BROWSER && /^(1|true|yes)$/i.test(process.env.REQUIRE_BROWSER ?? '')) {
  throw new Error(`REQUIRE_BROWSER is set but there is no Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
}
const SCREENSHOTS = resolve(__dirname, '../../test-results/screenshots');
/** The token icons are remote https URLs: the test answers them with this 1×1 PNG (no public network in tests). */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

// What a reader sees, written out from the page's promise (README): amounts with at most 2 decimals,
// prices with 6 significant digits, counts whole, split shares as percentages.
const amount = (n: number) => new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(n);
const price = (n: number | null) => (n === null ? '—' : new Intl.NumberFormat('en-US', { maximumSignificantDigits: 6 }).format(n));
const whole = (n: number) => new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(n);
const percent = (ppm: number) => `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 }).format(ppm / 10_000)}%`;

interface PoolJson {
  address: string;
  name: string;
  token_x: { symbol: string; decimals: number; address: string };
  token_y: { symbol: string; decimals: number; address: string };
  token_x_amount: number | string;
  token_y_amount: number | string;
  tvl: number;
  current_price: number | null;
  volume: { '24h': number };
  fees: { '24h': number };
  pool_config: { pool_state: string };
}
interface ListJson {
  total: number;
  data: PoolJson[];
}
interface FeesJson {
  totals: Record<'volume_usd' | 'spread_usd' | 'protocol_fee_usd' | 'protocol_fee_x_raw' | 'protocol_fee_y_raw' | 'swap_count', number>;
  protocol_fee_split: { recipient: string; ppm: number; fee_usd: number; fee_x_raw: number; fee_y_raw: number }[];
}
interface Captured {
  url: URL;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const gate = HAVE_BROWSER ? describe : describe.skip;
gate(
  HAVE_BROWSER
    ? 'explorer page (npm run demo, Chromium)'
    : `explorer page [skipped: no Chromium at ${CHROMIUM} — apt-get install chromium, or set CHROMIUM_PATH]`,
  () => {
    let demo: Started;
    let dataDir: string;
    let port: number;
    let browser: Browser;
    let page: Page;
    const children: Started['child'][] = [];
    /** Every API response the page received, in order. */
    const responses: Captured[] = [];
    const problems: string[] = [];
    const remote: string[] = [];

    beforeAll(async () => {
      mkdirSync(SCREENSHOTS, { recursive: true });
      dataDir = mkdtempSync(join(tmpdir(), 'hadron-explorer-'));
      port = await freePort();
      demo = startScript(
        'demo',
        {
          PORT: String(port),
          HOST: '127.0.0.1',
          SIM_PORT: String(await freePort()),
          EMBEDDED_PG_PORT: String(await freePort()),
          PG_DATA_DIR: dataDir,
          POOL_LIST_REFRESH_MS: '200',
          LOG_LEVEL: 'warn',
        },
        children,
      );
      // The build, the embedded Postgres and the backfill of both clusters: ready and pools listed.
      await waitFor(
        'the demo ready with pools on both clusters',
        async () => {
          if (demo.child.exitCode !== null) throw new Error(`npm run demo exited ${demo.child.exitCode}:\n${demo.output().slice(-3000)}`);
          if (!(await ready(port))) return false;
          const [m, d] = await Promise.all([getJson<ListJson>(port, '/pools?cluster=mainnet-beta'), getJson<ListJson>(port, '/pools?cluster=devnet')]);
          return m.body.total > 0 && d.body.total > 0;
        },
        420_000,
        500,
      );

      browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        // root (CI) cannot use Chromium's sandbox; /dev/shm is small in containers.
        args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-dev-shm-usage'],
      });
      page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      await page.setRequestInterception(true);
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.origin === `http://127.0.0.1:${port}` || url.protocol === 'data:') return void request.continue();
        remote.push(request.url());
        void request.respond({ status: 200, contentType: 'image/png', body: PIXEL });
      });
      page.on('response', async (response: HTTPResponse) => {
        const url = new URL(response.url());
        if (url.origin !== `http://127.0.0.1:${port}` || !url.pathname.startsWith('/pools')) return;
        const captured: Captured = { url, status: response.status(), headers: response.headers(), body: undefined };
        responses.push(captured);
        captured.body = await response.json().catch(() => undefined);
      });
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()} (${m.location().url ?? ''})`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message}`));
      page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
      // CSP violations, as the page itself sees them (a refused script or style also logs a console error).
      await page.evaluateOnNewDocument(
        "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))",
      );
    }, 600_000);

    afterAll(async () => {
      await browser?.close();
      if (demo?.child.pid && demo.child.exitCode === null) {
        signalGroup(demo, 'SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const stopped = await Promise.race([demo.exited.then(() => true), new Promise<boolean>((ok) => (timer = setTimeout(() => ok(false), 30_000)))]);
        clearTimeout(timer);
        if (!stopped) signalGroup(demo, 'SIGKILL');
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }, 60_000);

    afterEach(() => {
      // Nothing the page did may have logged an error, failed, or been refused by the CSP.
      expect(problems).toEqual([]);
    });

    /** The page's next response whose path and query match, once the body is read. */
    async function nextResponse(path: RegExp, query: Record<string, string>, after: number): Promise<Captured> {
      let found: Captured | undefined;
      await waitFor(
        `a response to ${path} ${JSON.stringify(query)}`,
        () => {
          found = responses
            .slice(after)
            .find((r) => path.test(r.url.pathname) && Object.entries(query).every(([k, v]) => r.url.searchParams.get(k) === v) && r.body !== undefined);
          return found !== undefined;
        },
        30_000,
        50,
      );
      expect(found!.status).toBe(200);
      return found!;
    }

    /** The rows as a reader sees them: text of each cell, and the exact values kept beside it. */
    function tableRows(): Promise<{ address: string; name: string; cells: Record<string, { text: string; value: string | null }> }[]> {
      return page.$$eval('[data-testid=pool-table] tbody tr[data-address]', (trs) =>
        trs.map((tr) => ({
          address: tr.getAttribute('data-address')!,
          name: tr.querySelector('.pool-name')!.textContent!,
          cells: Object.fromEntries(
            [...tr.querySelectorAll('td[data-field]')].map((td) => [
              td.getAttribute('data-field')!,
              { text: td.textContent!.trim(), value: td.getAttribute('data-value') },
            ]),
          ),
        })),
      );
    }

    /** What the table must show for a /pools answer. */
    function expectedRows(list: ListJson) {
      return list.data.map((p) => {
        const q = p.token_y.symbol;
        const cell = (v: number | null, text: string): { text: string; value: string | null } => ({
          text: v === null ? '—' : `${text} ${q}`,
          value: v === null ? '' : String(v),
        });
        return {
          address: p.address,
          name: p.name,
          cells: {
            price: cell(p.current_price, price(p.current_price)),
            tvl: cell(p.tvl, amount(p.tvl)),
            volume_24h: cell(p.volume['24h'], amount(p.volume['24h'])),
            fees_24h: cell(p.fees['24h'], amount(p.fees['24h'])),
            state: { text: p.pool_config.pool_state, value: null },
          },
        };
      });
    }

    /** Selects the search box's text and deletes it, as a reader would. */
    async function clearSearch(): Promise<void> {
      await page.click('#pool-search', { clickCount: 3 });
      await page.keyboard.press('Backspace');
    }

    async function settled(): Promise<void> {
      await page.waitForSelector('[data-testid=pool-table][aria-busy=false]');
    }

    async function addresses(path: string): Promise<string[]> {
      const { status, body } = await getJson<ListJson>(port, path);
      expect(status).toBe(200);
      return body.data.map((p) => p.address).sort();
    }

    /** The freshness box shows the X-Indexed-* headers of the response it belongs to. */
    async function expectFreshness(response: Captured): Promise<void> {
      expect(response.headers['x-indexed-slot']).toMatch(/^\d+$/);
      const shown = await page.$eval('[data-testid=freshness]', (el) => ({
        slot: el.getAttribute('data-slot'),
        time: el.getAttribute('data-time'),
        lag: el.getAttribute('data-lag-seconds'),
        slotText: el.querySelector('[data-field=slot]')!.textContent,
      }));
      expect(shown).toEqual({
        slot: response.headers['x-indexed-slot'],
        time: response.headers['x-indexed-time'] ?? '',
        lag: response.headers['x-data-lag-seconds'] ?? '',
        slotText: whole(Number(response.headers['x-indexed-slot'])),
      });
    }

    test('the pool table shows GET /pools as the API answered it: names, price, TVL, 24h volume and fees, and freshness', async () => {
      const from = responses.length;
      await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: 'load' });
      const list = await nextResponse(/^\/pools$/, { cluster: 'mainnet-beta', sort_by: 'volume_24h:desc', page: '1' }, from);
      await settled();
      const body = list.body as ListJson;
      expect(body.data.length).toBeGreaterThan(0);
      expect(await tableRows()).toEqual(expectedRows(body));
      // The same pools as the API lists for anyone (the set: live swaps may reorder by volume).
      expect(body.data.map((p) => p.address).sort()).toEqual(await addresses('/pools?cluster=mainnet-beta&page_size=20'));
      expect(await page.$eval('[data-testid=page-info]', (e) => e.textContent)).toContain(`${whole(body.total)} pools`);
      await expectFreshness(list);
      await page.screenshot({ path: join(SCREENSHOTS, 'explorer-pool-table.png'), fullPage: true });
    });

    test('search asks the API with query= and shows exactly its matches', async () => {
      const all = (await getJson<ListJson>(port, '/pools?cluster=mainnet-beta&page_size=100')).body;
      // A symbol that narrows the list: the quote of the pool whose quote is the rarest.
      const counts = new Map<string, number>();
      for (const p of all.data) counts.set(p.token_y.symbol, (counts.get(p.token_y.symbol) ?? 0) + 1);
      const term = [...counts.entries()].sort((a, b) => a[1] - b[1])[0][0];
      const expected = await addresses(`/pools?cluster=mainnet-beta&query=${encodeURIComponent(term)}&page_size=20`);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(all.total);

      const from = responses.length;
      await page.type('#pool-search', term);
      await page.keyboard.press('Enter');
      const list = await nextResponse(/^\/pools$/, { cluster: 'mainnet-beta', query: term }, from);
      await settled();
      expect(await tableRows()).toEqual(expectedRows(list.body as ListJson));
      expect((await tableRows()).map((r) => r.address).sort()).toEqual(expected);

      // Nothing matches: the table says so.
      const none = responses.length;
      await clearSearch();
      await page.type('#pool-search', 'no-such-pool-zzz');
      await page.keyboard.press('Enter');
      await nextResponse(/^\/pools$/, { query: 'no-such-pool-zzz' }, none);
      await settled();
      expect(await page.$eval('[data-testid=pool-table] tbody', (e) => e.textContent)).toContain('No pools on mainnet-beta match “no-such-pool-zzz”');

      // Cleared: the whole list again.
      const back = responses.length;
      await clearSearch();
      await page.keyboard.press('Enter');
      await nextResponse(/^\/pools$/, { cluster: 'mainnet-beta', sort_by: 'volume_24h:desc' }, back);
      await settled();
      expect((await tableRows()).length).toBe(Math.min(all.total, 20));
    });

    test('sorting by a column asks the API with sort_by= and shows its order, descending then ascending', async () => {
      for (const [dir, ordered] of [
        ['desc', (a: number, b: number) => a >= b],
        ['asc', (a: number, b: number) => a <= b],
      ] as const) {
        const from = responses.length;
        await page.click('button[data-sort=tvl]');
        const list = await nextResponse(/^\/pools$/, { sort_by: `tvl:${dir}` }, from);
        await settled();
        const rows = await tableRows();
        expect(rows).toEqual(expectedRows(list.body as ListJson));
        const tvl = rows.map((r) => Number(r.cells.tvl.value));
        expect(tvl.every((v, i) => i === 0 || ordered(tvl[i - 1], v))).toBe(true);
        expect(await page.$eval('button[data-sort=tvl]', (b) => b.closest('th')!.getAttribute('aria-sort'))).toBe(dir === 'desc' ? 'descending' : 'ascending');
      }
    });

    test('the cluster switch lists the other cluster’s pools', async () => {
      const from = responses.length;
      await page.select('#cluster', 'devnet');
      const list = await nextResponse(/^\/pools$/, { cluster: 'devnet' }, from);
      await settled();
      const rows = await tableRows();
      expect(rows).toEqual(expectedRows(list.body as ListJson));
      expect(rows.map((r) => r.address).sort()).toEqual(await addresses('/pools?cluster=devnet&page_size=20'));
      const mainnet = await addresses('/pools?cluster=mainnet-beta&page_size=100');
      expect(rows.filter((r) => mainnet.includes(r.address))).toEqual([]);
    });

    test('a pool page: tokens and vaults, midprice chart per timeframe, daily volume bars, fees per window with the recipient split, freshness', async () => {
      // A pool whose protocol fee is split among recipients (found through the API, on either cluster).
      let target: { cluster: string; pool: PoolJson } | undefined;
      for (const cluster of ['mainnet-beta', 'devnet']) {
        for (const pool of (await getJson<ListJson>(port, `/pools?cluster=${cluster}&page_size=100`)).body.data) {
          const fees = await getJson<FeesJson>(port, `/pools/${pool.address}/fees?cluster=${cluster}&interval=all`);
          if (!target && fees.body.protocol_fee_split.length > 0) target = { cluster, pool };
        }
      }
      expect(target).toBeDefined();
      const { cluster, pool } = target!;

      // Through the table, as a reader gets there: cluster, search by address, click.
      await page.goto(`http://127.0.0.1:${port}/#/?cluster=${cluster}`, { waitUntil: 'load' });
      await settled();
      await page.type('#pool-search', pool.address);
      await page.keyboard.press('Enter');
      // The search's own rows (typing may have started other searches whose rows it replaces).
      await settled();
      await page.waitForSelector(`tr[data-address="${pool.address}"] a.pool-link`);
      const from = responses.length;
      await page.click(`tr[data-address="${pool.address}"] a.pool-link`);
      expect(new URL(page.url()).hash).toBe(`#/pools/${cluster}/${pool.address}`);

      // The pool page asks for the pool itself, raw amounts as strings (exact beyond 2^53).
      const summary = await nextResponse(new RegExp(`^/pools/${pool.address}$`), { cluster, raw_amounts: 'string' }, from);
      const shown = summary.body as PoolJson;
      expect(typeof shown.token_x_amount).toBe('string');
      await page.waitForSelector('[data-testid=pool-name]');
      expect(await page.$eval('[data-testid=pool-name]', (e) => e.textContent)).toBe(pool.name);
      const stats = await page.$$eval('.stats dd', (dds) => dds.map((d) => [d.getAttribute('data-field'), d.getAttribute('data-value'), d.textContent]));
      expect(stats).toEqual([
        ['price', String(shown.current_price ?? ''), price(shown.current_price)],
        ['tvl', String(shown.tvl), amount(shown.tvl)],
        ['volume_24h', String(shown.volume['24h']), amount(shown.volume['24h'])],
        ['fees_24h', String(shown.fees['24h']), amount(shown.fees['24h'])],
      ]);
      await expectFreshness(summary);

      // Vault balances in token units, exact raw atoms beside them.
      const vaults = await page.$$eval('[data-testid=tokens] tbody tr', (trs) =>
        trs.map((tr) => [tr.querySelector('[data-field=vault]')!.getAttribute('data-raw'), tr.querySelector('[data-field=vault]')!.textContent]),
      );
      const units = (raw: number | string, decimals: number) => (BigInt(raw) / 10n ** BigInt(decimals)).toLocaleString('en-US');
      expect(vaults.map((v) => v[0])).toEqual([String(shown.token_x_amount), String(shown.token_y_amount)]);
      expect(vaults[0][1]!.startsWith(units(shown.token_x_amount, shown.token_x.decimals))).toBe(true);
      expect(vaults[1][1]!.endsWith(` ${shown.token_y.symbol}`)).toBe(true);

      // Midprice: as many points as the API returned for the timeframe, for the default and another one.
      for (const [timeframe, click] of [
        ['5m', false],
        ['1m', true],
      ] as const) {
        const before = responses.length;
        if (click) await page.click(`[aria-label=Timeframe] button[data-value="${timeframe}"]`);
        const history = await nextResponse(/\/midprice\/history$/, { cluster, timeframe }, click ? before : from);
        const points = (history.body as { data: unknown[] }).data.length;
        expect(points).toBeGreaterThan(1);
        await page.waitForSelector(`[data-testid=midprice-chart][data-timeframe="${timeframe}"][aria-busy=false]`);
        const chart = await page.$eval('[data-testid=midprice-chart]', (el) => ({
          points: Number(el.getAttribute('data-points')),
          canvas: (el.querySelector('canvas')?.width ?? 0) > 0,
        }));
        expect(chart).toEqual({ points, canvas: true });
        expect(await page.$eval(`[aria-label=Timeframe] button[data-value="${timeframe}"]`, (b) => b.getAttribute('aria-pressed'))).toBe('true');
      }
      expect(await page.$eval('[data-testid=price-formula]', (e) => e.textContent)).toContain(`10^(${shown.token_x.decimals} − ${shown.token_y.decimals})`);

      // Daily volume: one bar per bucket the API returned, the values in the table beside it.
      const volume = await nextResponse(/\/volume\/history$/, { cluster }, from);
      const days = (volume.body as { data: { timestamp: number; volume: number; fees: number }[] }).data;
      expect(days.length).toBeGreaterThan(0);
      await page.waitForSelector('[data-testid=volume-chart][data-bars] canvas');
      expect(await page.$eval('[data-testid=volume-chart]', (el) => Number(el.getAttribute('data-bars')))).toBe(days.length);
      const dayRows = await page.$$eval('[data-testid=volume-table] tbody tr', (trs) =>
        trs.map((tr) => [Number(tr.getAttribute('data-timestamp')), ...[...tr.querySelectorAll('td')].map((td) => Number(td.getAttribute('data-value')))]),
      );
      expect(dayRows).toEqual([...days].sort((a, b) => a.timestamp - b.timestamp).map((d) => [d.timestamp, d.volume, d.fees]));

      // Fees: every window's totals as the API answered them.
      for (const interval of ['1h', '24h', '7d', '30d', 'all']) {
        const report = (await nextResponse(/\/fees$/, { cluster, interval }, from)).body as FeesJson;
        await page.waitForSelector(`[data-testid=fees-table] tr[data-window="${interval}"] td[data-field]`);
        const cells = await page.$$eval(`[data-testid=fees-table] tr[data-window="${interval}"] td[data-field]`, (tds) =>
          Object.fromEntries(tds.map((td) => [td.getAttribute('data-field'), [td.getAttribute('data-value'), td.textContent]])),
        );
        const t = report.totals;
        expect(cells).toEqual({
          volume_usd: [String(t.volume_usd), amount(t.volume_usd)],
          spread_usd: [String(t.spread_usd), amount(t.spread_usd)],
          protocol_fee_usd: [String(t.protocol_fee_usd), amount(t.protocol_fee_usd)],
          protocol_fee_x_raw: [String(t.protocol_fee_x_raw), whole(t.protocol_fee_x_raw)],
          protocol_fee_y_raw: [String(t.protocol_fee_y_raw), whole(t.protocol_fee_y_raw)],
          swap_count: [String(t.swap_count), whole(t.swap_count)],
        });
      }

      // The split of the protocol fee over the whole history, recipient by recipient.
      await page.click('[aria-label="Split window"] button[data-value=all]');
      await page.waitForSelector('[data-testid=fee-split][data-window=all] [data-testid=split-table]');
      const all = (responses.slice(from).find((r) => /\/fees$/.test(r.url.pathname) && r.url.searchParams.get('interval') === 'all')!.body as FeesJson)
        .protocol_fee_split;
      expect(all.length).toBeGreaterThan(0);
      const split = await page.$$eval('[data-testid=split-table] tbody tr', (trs) =>
        trs.map((tr) => ({
          recipient: tr.getAttribute('data-recipient'),
          cells: Object.fromEntries(
            [...tr.querySelectorAll('td[data-field]')].map((td) => [td.getAttribute('data-field'), [td.getAttribute('data-value'), td.textContent]]),
          ),
        })),
      );
      expect(split).toEqual(
        all.map((r) => ({
          recipient: r.recipient,
          cells: {
            ppm: [String(r.ppm), percent(r.ppm)],
            fee_usd: [String(r.fee_usd), amount(r.fee_usd)],
            fee_x_raw: [String(r.fee_x_raw), amount(r.fee_x_raw)],
            fee_y_raw: [String(r.fee_y_raw), amount(r.fee_y_raw)],
          },
        })),
      );

      await page.screenshot({ path: join(SCREENSHOTS, 'explorer-pool-page.png'), fullPage: true });
      // Token icons were asked for at their remote https addresses (answered by the test), nothing else left the origin.
      expect(remote.every((u) => u.startsWith('https://'))).toBe(true);
    });

    test('an unknown pool address shows a visible error, not an empty page', async () => {
      await page.goto(`http://127.0.0.1:${port}/#/pools/mainnet-beta/11111111111111111111111111111111`, { waitUntil: 'load' });
      await page.waitForSelector('[role=alert]');
      expect(await page.$eval('[role=alert]', (e) => e.textContent)).toContain('No pool 11111111111111111111111111111111 on mainnet-beta');
      // The browser logs the API's 404 for that pool (the answer the page expects); nothing else.
      const expected = problems.filter((p) => /status of 404/.test(p) && p.includes('/pools/11111111111111111111111111111111?'));
      expect(expected).toHaveLength(1);
      problems.splice(problems.indexOf(expected[0]), 1);
    });
  },
);
