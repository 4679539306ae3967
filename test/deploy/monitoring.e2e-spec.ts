import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { startSimulator, type RunningSimulator } from '../../apps/simulator/src';
import { simIndexerEnv, waitFor } from '../indexer/indexer-harness';
import { freePort, startEntry, type Started } from '../pipeline/support/app-process';

/**
 * THE DASHBOARD OPERATORS GET (docker-compose.yml's prometheus + grafana). Indexer, projector and
 * API run as three processes, as compose runs them, against the simulated cluster (with RPC faults,
 * so the error series exist); their real /metrics are scraped over HTTP, and every PromQL expression
 * of every panel of deploy/grafana/dashboards/hadron.json must name series they expose, with labels
 * those series carry. Every panel must use the datasource Grafana's provisioning defines, and
 * Prometheus must scrape each compose service on the port its ops listener is given there.
 */

const ROOT = resolve(__dirname, '../..');
const DEPLOY = join(ROOT, 'deploy');
const readYaml = <T>(path: string): T => parseYaml(readFileSync(path, 'utf8')) as T;

interface Compose {
  services: Record<string, { image?: string; command?: string[]; environment?: Record<string, string>; volumes?: string[]; ports?: string[] }>;
}
interface PromConfig {
  scrape_configs: Array<{
    job_name: string;
    metrics_path?: string;
    dns_sd_configs?: Array<{ names: string[]; type: string; port: number }>;
    static_configs?: Array<{ targets: string[] }>;
  }>;
}
interface Datasources {
  datasources: Array<{ name: string; uid: string; type: string; url: string }>;
}
interface DashboardProviders {
  providers: Array<{ type: string; options: { path: string } }>;
}
interface Target {
  expr: string;
  datasource?: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  panels: Panel[];
  templating: { list: Array<{ name: string; datasource?: { type: string; uid: string }; query: { query: string } | string }> };
}

const compose = readYaml<Compose>(join(ROOT, 'docker-compose.yml'));
const prometheus = readYaml<PromConfig>(join(DEPLOY, 'prometheus/prometheus.yml'));
const dashboard = JSON.parse(readFileSync(join(DEPLOY, 'grafana/dashboards/hadron.json'), 'utf8')) as Dashboard;

/** `host:container[:mode]` bind mounts of a compose service, host paths resolved from the repository root. */
function bindMounts(service: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of compose.services[service]!.volumes ?? []) {
    const [host, container] = v.split(':');
    if (host!.startsWith('.')) out.set(container!, resolve(ROOT, host!));
  }
  return out;
}

/** The metric families of a /metrics text: series name → label names seen on its samples, and each family's type. */
interface Scrape {
  types: Map<string, string>;
  samples: Map<string, Set<string>>;
}

function parseExposition(text: string): Scrape {
  const types = new Map<string, string>();
  const samples = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? /.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels = samples.get(m[1]!) ?? new Set<string>();
    for (const l of (m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g)) labels.add(l[1]!);
    samples.set(m[1]!, labels);
  }
  return { types, samples };
}

/** Series names a family exposes: a histogram's _bucket/_sum/_count, a summary's quantiles, _sum and _count. */
function seriesNames(types: Map<string, string>): Set<string> {
  const out = new Set<string>();
  for (const [name, type] of types) {
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) out.add(name + s);
    else if (type === 'summary') for (const s of ['', '_sum', '_count']) out.add(name + s);
    else out.add(name);
  }
  return out;
}

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/** What a PromQL expression reads: the series it selects, the label names it matches or groups on, and the jobs it names. */
function analysePromql(raw: string): { metrics: Set<string>; labels: Set<string>; jobs: string[] } {
  const labels = new Set<string>();
  const jobs: string[] = [];
  // Grafana's variables: a range and label values (they only ever stand inside [] or "").
  let expr = raw.replace(/\$__rate_interval|\$__interval/g, '1m');
  for (const block of expr.matchAll(/\{([^}]*)\}/g)) {
    for (const m of block[1]!.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)) {
      labels.add(m[1]!);
      if (m[1] === 'job' && (m[2] === '=' || m[2] === '=~')) jobs.push(...m[3]!.split('|'));
    }
  }
  expr = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ');
  for (const m of expr.matchAll(/\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)) {
    for (const l of m[2]!
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      labels.add(l);
  }
  expr = expr.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const metrics = new Set<string>();
  for (const m of expr.matchAll(/(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    if (m[2] || PROMQL_KEYWORDS.has(m[1]!.toLowerCase())) continue; // a function or aggregation, or a keyword
    metrics.add(m[1]!);
  }
  return { metrics, labels, jobs };
}

/** Every panel, rows' nested ones included. */
const allPanels = (ps: Panel[]): Panel[] => ps.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);

/** Labels Prometheus adds to every scraped series (from the target), and the series it makes itself. */
const TARGET_LABELS = new Set(['job', 'instance']);
const PROMETHEUS_SERIES = new Set(['up']);
/**
 * Series that first appear with an incident: counters of failed indexing cycles, failed batches and
 * dead-lettered events, and the projector's stall gauge (set at its first stall; the dashboard shows
 * 0 until then). A healthy run has no sample of them, so only their names can be checked here.
 */
const INCIDENT_SERIES = new Set([
  'hadron_indexer_cycle_errors_total',
  'hadron_projector_batch_failures_total',
  'hadron_projector_dead_letters_total',
  'hadron_projector_stalled',
]);

describe('monitoring: compose Prometheus and the Grafana dashboard', () => {
  it('Prometheus scrapes every deployable of docker-compose.yml on the port its ops listener is given there', () => {
    // Where each service serves /metrics in compose: OPS_PORT (indexer, projector), API_OPS_PORT (api).
    const opsPort = (service: string) => {
      const env = compose.services[service]?.environment ?? {};
      return Number(service === 'api' ? env.API_OPS_PORT : env.OPS_PORT);
    };
    const deployables = Object.entries(compose.services)
      .filter(([, s]) => s.command?.some((c) => /^dist\/apps\/(indexer|projector|api)\/src\/main\.js$/.test(c)))
      .map(([name]) => name)
      .sort();
    expect(deployables).toEqual(['api', 'indexer', 'projector']);
    const scraped = prometheus.scrape_configs.map((c) => ({
      job: c.job_name,
      path: c.metrics_path ?? '/metrics',
      targets: (c.dns_sd_configs ?? []).flatMap((d) => d.names.map((n) => `${n}:${d.port}`)).concat((c.static_configs ?? []).flatMap((s) => s.targets)),
    }));
    expect(scraped.sort((a, b) => a.job.localeCompare(b.job))).toEqual(deployables.map((s) => ({ job: s, path: '/metrics', targets: [`${s}:${opsPort(s)}`] })));
    // The API's ops listener must listen beyond loopback for Prometheus to reach it.
    expect(compose.services.api!.environment!.API_OPS_HOST).toBe('0.0.0.0');

    // The file compose mounts is this one, where the command says the config is.
    const mounts = bindMounts('prometheus');
    const configFlag = compose.services.prometheus!.command!.find((c) => c.startsWith('--config.file='))!.slice('--config.file='.length);
    expect(mounts.get(configFlag)).toBe(join(DEPLOY, 'prometheus/prometheus.yml'));
    for (const s of ['prometheus', 'grafana'])
      expect({ s, image: compose.services[s]!.image }).toEqual({ s, image: expect.stringMatching(/:v?\d+\.\d+\.\d+$/) as string }); // pinned
  });

  it('Grafana is provisioned with that Prometheus and loads the dashboard directory compose mounts; no literal password', () => {
    const mounts = bindMounts('grafana');
    const provisioning = mounts.get('/etc/grafana/provisioning');
    expect(provisioning).toBe(join(DEPLOY, 'grafana/provisioning'));
    const ds = readYaml<Datasources>(join(provisioning!, 'datasources/prometheus.yml')).datasources;
    expect(ds.map((d) => ({ type: d.type, url: d.url }))).toEqual([{ type: 'prometheus', url: 'http://prometheus:9090' }]);
    const providers = readYaml<DashboardProviders>(join(provisioning!, 'dashboards/hadron.yml')).providers;
    expect(providers.map((p) => mounts.get(p.options.path))).toEqual([join(DEPLOY, 'grafana/dashboards')]);
    // From .env (required), as POSTGRES_PASSWORD: never a value in the file.
    expect(compose.services.grafana!.environment!.GF_SECURITY_ADMIN_PASSWORD).toMatch(/^\$\{GRAFANA_ADMIN_PASSWORD:\?/);
  });

  it('every panel and variable queries the provisioned datasource', () => {
    const uids = readYaml<Datasources>(join(DEPLOY, 'grafana/provisioning/datasources/prometheus.yml')).datasources.map((d) => `${d.type}/${d.uid}`);
    const used = [
      ...allPanels(dashboard.panels)
        .filter((p) => p.type !== 'row')
        .flatMap((p) => [
          { where: p.title, ds: p.datasource },
          ...(p.targets ?? []).map((t) => ({ where: `${p.title}: ${t.expr}`, ds: t.datasource ?? p.datasource })),
        ]),
      ...dashboard.templating.list.map((v) => ({ where: `$${v.name}`, ds: v.datasource })),
    ];
    expect(used.length).toBeGreaterThan(20);
    expect(used.filter((u) => !uids.includes(`${u.ds?.type}/${u.ds?.uid}`))).toEqual([]);
  });

  describe('against the processes as compose runs them', () => {
    let sim: RunningSimulator;
    let db: TestDatabase;
    const children: Started['child'][] = [];
    const ports = { api: 0, apiOps: 0, indexerOps: 0, projectorOps: 0 };
    const scrapes: Record<'indexer' | 'projector' | 'api', Scrape> = {} as never;

    beforeAll(async () => {
      // A few RPC faults (retried): the indexer's error series then have samples with their labels.
      sim = await startSimulator({ port: 0, seed: 'monitoring-e2e', pools: 3, historySeconds: 120, live: true, faults: { rate: 0.05, kinds: ['429', '5xx'] } });
      db = await createTestDatabase();
      for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
      const env = { ...simIndexerEnv(sim), DATABASE_URL: db.url, HOST: '127.0.0.1', OPS_HOST: '127.0.0.1', LOG_LEVEL: 'warn', POOL_LIST_REFRESH_MS: '200' };
      const procs = {
        indexer: startEntry('apps/indexer/src/main.ts', { ...env, OPS_PORT: String(ports.indexerOps) }, children),
        projector: startEntry('apps/projector/src/main.ts', { ...env, OPS_PORT: String(ports.projectorOps) }, children),
        // As compose runs it (metrics on API_OPS_PORT), reading "a replica" so the replica-lag gauge
        // exists: the primary itself (not in recovery, so readiness is unaffected).
        api: startEntry(
          'apps/api/src/main.ts',
          { ...env, PORT: String(ports.api), API_OPS_PORT: String(ports.apiOps), API_OPS_HOST: '127.0.0.1', DATABASE_READ_URL: db.url },
          children,
        ),
      };
      const exits: string[] = [];
      for (const [name, p] of Object.entries(procs)) void p.exited.then((code) => exits.push(`${name} exited ${code}:\n${p.output().slice(-3000)}`));
      await waitFor(
        'the API ready',
        async () => {
          if (exits.length) throw new Error(exits.join('\n'));
          return (await fetch(`http://127.0.0.1:${ports.api}/health/ready`).catch(() => null))?.status === 200;
        },
        180_000,
        250,
      );

      // Traffic of every kind a panel shows: the list, per-pool queries, a 404, a 400.
      const get = (path: string) =>
        fetch(`http://127.0.0.1:${ports.api}${path}`).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { data?: Array<{ address: string }> },
        }));
      const pools = await get('/pools');
      expect(pools.status).toBe(200);
      const address = pools.body.data![0]!.address;
      for (const path of [
        '/pools',
        `/pools/${address}/fees?interval=24h`,
        `/pools/${address}/midprice/history`,
        `/pools/${address}/volume/history`,
        '/pools/11111111111111111111111111111111/fees',
        '/pools?page_size=0',
      ])
        await get(path);

      const scrape = async (port: number) => parseExposition(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
      await waitFor('RPC errors counted', async () => (await scrape(ports.indexerOps)).samples.has('hadron_indexer_rpc_errors_total'), 60_000, 250);
      scrapes.indexer = await scrape(ports.indexerOps);
      scrapes.projector = await scrape(ports.projectorOps);
      scrapes.api = await scrape(ports.apiOps);
    }, 240_000);

    afterAll(async () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await sim?.stop();
      await db?.drop();
    }, 60_000);

    it('every expression of every panel and variable reads series the processes expose, with labels they carry', () => {
      const byProcess = Object.entries(scrapes).map(([job, s]) => ({ job, names: seriesNames(s.types), samples: s.samples }));
      const jobs = prometheus.scrape_configs.map((c) => c.job_name);
      const expressions = [
        ...allPanels(dashboard.panels).flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr }))),
        ...dashboard.templating.list.map((v) => ({ where: `$${v.name}`, expr: typeof v.query === 'string' ? v.query : v.query.query })),
      ];
      expect(expressions.length).toBeGreaterThan(40);
      const problems: string[] = [];
      let metricsChecked = 0;
      for (const { where, expr } of expressions) {
        // label_values(metric, label): the metric must carry the label.
        const lv = /^label_values\(([a-zA-Z_:][\w:]*),\s*(\w+)\)$/.exec(expr);
        const { metrics, labels, jobs: named } = lv ? { metrics: new Set([lv[1]!]), labels: new Set([lv[2]!]), jobs: [] } : analysePromql(expr);
        if (metrics.size === 0) problems.push(`${where}: no series in ${expr}`);
        for (const j of named) if (!jobs.includes(j)) problems.push(`${where}: job "${j}" is not scraped by prometheus.yml`);
        const carried = new Set<string>(TARGET_LABELS);
        let sampled = false;
        for (const m of metrics) {
          if (PROMETHEUS_SERIES.has(m)) continue;
          metricsChecked++;
          const process = byProcess.find((p) => p.names.has(m));
          if (!process) {
            problems.push(`${where}: ${m} is exposed by no process`);
            continue;
          }
          // Prefixes follow the process (hadron_indexer_*, hadron_projector_*, hadron_api_*).
          if (!m.startsWith(`hadron_${process.job}_`)) problems.push(`${where}: ${m} comes from the ${process.job}`);
          const seen = process.samples.get(m);
          if (seen) {
            sampled = true;
            for (const l of seen) carried.add(l);
          } else if (!INCIDENT_SERIES.has(m)) {
            problems.push(`${where}: ${m} has no sample in a running system`);
          }
        }
        if (sampled) for (const l of labels) if (!carried.has(l)) problems.push(`${where}: label "${l}" is on none of ${[...metrics].join(', ')}`);
      }
      expect(problems).toEqual([]);
      expect(metricsChecked).toBeGreaterThan(40);
    });

    it('the API serves /metrics only on its ops port, where compose has Prometheus scrape it', async () => {
      expect((await fetch(`http://127.0.0.1:${ports.api}/metrics`)).status).toBe(404);
      expect(scrapes.api.samples.has('hadron_api_request_duration_seconds_count')).toBe(true);
    });
  });
});

describe('analysePromql', () => {
  it('finds series, labels and jobs, and leaves functions, keywords, durations and strings out', () => {
    expect(
      analysePromql(
        'histogram_quantile(0.99, sum by (le, route) (rate(hadron_api_request_duration_seconds_bucket{status_code=~"5..",job="api"}[$__rate_interval]))) or vector(0)',
      ),
    ).toEqual({ metrics: new Set(['hadron_api_request_duration_seconds_bucket']), labels: new Set(['status_code', 'job', 'le', 'route']), jobs: ['api'] });
    expect(analysePromql('sum by (job) (up{job=~"indexer|api"}) / on (job) group_left count(x_total offset 5m)')).toEqual({
      metrics: new Set(['up', 'x_total']),
      labels: new Set(['job']),
      jobs: ['indexer', 'api'],
    });
  });
});
