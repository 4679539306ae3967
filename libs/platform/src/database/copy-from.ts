import type { ClientBase } from 'pg';

/**
 * COPY … FROM STDIN over pg's own protocol support (pg-copy-streams is not a dependency): a
 * "submittable" query that sends the given chunks as CopyData messages, with back-pressure.
 * Used by the projections' staging tables (apps/projector/src/sql/staging.ts), a replay's finish
 * (chunks computed while they are sent: an async iterable), benchmarks and bulk test fixtures;
 * resolves with the row count Postgres reports. Should the chunks fail (the iterable throws), the
 * COPY is aborted (CopyFail) and the promise rejects with the chunks' error.
 */
export function copyFrom(client: ClientBase, sql: string, chunks: Iterable<Buffer> | AsyncIterable<Buffer>): Promise<number> {
  return new Promise((resolve, reject) => {
    let failure: Error | undefined;
    let chunksFailed: Error | undefined;
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
        sendCopyFail(message: string): void;
      }) {
        void (async () => {
          try {
            for await (const chunk of chunks) {
              if (failure) return;
              connection.sendCopyFromChunk(chunk);
              if (connection.stream.writableNeedDrain) await new Promise((r) => connection.stream.once('drain', r));
            }
          } catch (e) {
            // The server ends the COPY with an error (handleError), which then rejects with this one.
            chunksFailed = e as Error;
            if (!failure) connection.sendCopyFail(`the COPY's input failed: ${(e as Error).message}`.slice(0, 500));
            return;
          }
          if (!failure) connection.endCopyFrom();
        })();
      },
      handleCommandComplete(msg: { text?: string }) {
        rows = Number(/COPY (\d+)/.exec(msg.text ?? '')?.[1] ?? 0);
      },
      handleError(err: Error) {
        failure = chunksFailed ?? err;
        reject(failure);
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

/**
 * COPY (…) TO STDOUT, row by row: `onRow` gets each row's COPY text (with its newline) as it
 * arrives, and must use it before returning (the buffer is the protocol parser's, reused after).
 * When `onRow` returns a promise (its consumer is full), the connection's socket is paused until
 * it settles: back-pressure, so a result larger than memory streams through. Should `onRow`
 * throw (or its promise reject), the rest of the result is drained unread and the promise rejects
 * with that error once the connection is ready again. Resolves with the row count.
 */
export function copyTo(client: ClientBase, sql: string, onRow: (row: Buffer) => void | Promise<void>): Promise<number> {
  return new Promise((resolve, reject) => {
    let failure: unknown;
    let failed = false;
    let rows = 0;
    let paused = false;
    let stream: { pause(): void; resume(): void } | undefined;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      failure = e;
    };
    const submittable = {
      submit(connection: { stream: { pause(): void; resume(): void }; query(text: string): void }) {
        stream = connection.stream;
        connection.query(sql);
      },
      handleCopyData(msg: { chunk: Buffer }) {
        if (failed) return;
        rows++;
        let wait: void | Promise<void>;
        try {
          wait = onRow(msg.chunk);
        } catch (e) {
          fail(e);
          return;
        }
        if (wait === undefined || paused) return;
        paused = true;
        stream?.pause();
        wait.then(
          () => {
            paused = false;
            stream?.resume();
          },
          (e: unknown) => {
            fail(e);
            paused = false;
            stream?.resume();
          },
        );
      },
      handleCommandComplete() {},
      handleError(err: Error) {
        if (paused) stream?.resume();
        reject(failed ? failure : err);
      },
      handleReadyForQuery() {
        if (failed) reject(failure);
        else resolve(rows);
      },
      handleRowDescription() {},
      handleDataRow() {},
      handleEmptyQuery() {},
      handleCopyInResponse() {},
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

/**
 * The text a COPY text-format field (of COPY TO, not \N) stands for: its backslash escapes undone.
 * Postgres writes \\ \b \f \n \r \t \v and no other escape.
 */
export function copyFieldText(field: string): string {
  if (!field.includes('\\')) return field;
  return field.replace(/\\(.)/g, (_, c: string) => COPY_ESCAPES[c] ?? c);
}

const COPY_ESCAPES: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
