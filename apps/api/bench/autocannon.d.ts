// The few autocannon 8 types the bench uses (the package ships none; @types/autocannon is not installed).
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      requests?: Array<{ method?: string; setupRequest?: (req: Record<string, unknown>) => Record<string, unknown> }>;
    }
    interface Histogram {
      average: number;
      p50: number;
      p99: number;
    }
    interface Result {
      requests: Histogram & { total: number };
      latency: Histogram;
      non2xx: number;
      errors: number;
      '2xx': number;
      /** Responses per status code, e.g. { '200': { count: 10 }, '503': { count: 2 } }. */
      statusCodeStats?: Record<string, { count: number }>;
    }
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
