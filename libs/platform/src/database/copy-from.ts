import type { ClientBase } from 'pg';

/**
 * COPY … FROM STDIN over pg's own protocol support (pg-copy-streams is not a dependency): a
 * "submittable" query that sends the given chunks as CopyData messages, with back-pressure.
 * Used by the projections' staging tables (apps/projector/src/sql/staging.ts), benchmarks and bulk
 * test fixtures; resolves with the row count Postgres reports.
 */
export function copyFrom(client: ClientBase, sql: string, chunks: readonly Buffer[]): Promise<number> {
  return new Promise((resolve, reject) => {
    let failure: Error | undefined;
    let rows = 0;
    // pg drops its active query before calling handleError, both for an error from the server
    // (bad data: ReadyForQuery follows but goes to no query) and for a lost connection (nothing
    // follows): handleReadyForQuery never comes after an error, so the error settles the promise.
    // Waiting for it instead left a COPY whose connection was terminated pending forever, and the
    // consumer's batch with it.
    const submittable = {
      submit(connection: { query(text: string): void }) {
        connection.query(sql);
      },
      handleCopyInResponse(connection: {
        stream: NodeJS.WritableStream & { writableNeedDrain?: boolean };
        sendCopyFromChunk(b: Buffer): void;
        endCopyFrom(): void;
      }) {
        void (async () => {
          for (const chunk of chunks) {
            if (failure) return;
            connection.sendCopyFromChunk(chunk);
            if (connection.stream.writableNeedDrain) await new Promise((r) => connection.stream.once('drain', r));
          }
          connection.endCopyFrom();
        })();
      },
      handleCommandComplete(msg: { text?: string }) {
        rows = Number(/COPY (\d+)/.exec(msg.text ?? '')?.[1] ?? 0);
      },
      handleError(err: Error) {
        failure = err;
        reject(err);
      },
      handleReadyForQuery() {
        if (failure) reject(failure);
        else resolve(rows);
      },
      handleRowDescription() {},
      handleDataRow() {},
      handleEmptyQuery() {},
      handleCopyData() {},
      handlePortalSuspended() {},
    };
    (client as unknown as { query(s: unknown): void }).query(submittable);
  });
}

/** One COPY text-format line: tab-separated, with the format's escapes; null → \N. */
export function copyLine(values: readonly (string | null)[]): string {
  return values.map(copyField).join('\t') + '\n';
}

/** One value as a COPY text-format field: null (or undefined) → \N, booleans t/f, numbers as written, text with the format's escapes. */
export function copyField(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') return String(v);
  return SPECIAL.test(v) ? v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : v;
}

const SPECIAL = /[\\\t\n\r]/;
