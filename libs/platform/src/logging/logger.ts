import { Writable } from 'node:stream';
import pino from 'pino';
import pretty from 'pino-pretty';
import { ConfigError, LOG_FORMATS, type LogFormat } from '../config/env';
import { isSecretKey, REDACTED, redactSecrets } from './redact';

export type Logger = pino.Logger;

/** Where a logger writes (tests pass a capturing stream): anything with a `write(string)`. */
export type LogDestination = pino.DestinationStream;

/**
 * Every log line stays under 4 KB: log shippers (Loki, CloudWatch, journald) truncate or drop
 * longer ones. Call sites log counts and the first few items of a list (`logList`) and say where
 * the full list lives; the logger bounds whatever still gets through (arrays, long strings, deep
 * objects, huge errors), and a line still over the limit is replaced by a short one that says so.
 *
 * Secrets never reach a line either: the same layer passes every string (fields, bindings, the
 * message, error messages and stacks) through `redactSecrets` and masks fields named like
 * credentials (`authorization`, `password`…; see redact.ts). Call sites redact URLs they log too:
 * this is the second line of defence, not the only one.
 */
export const MAX_LOG_LINE_BYTES = 4096;
/** Items of an array kept in a log line (the rest are counted). */
export const MAX_LOGGED_ITEMS = 10;
/** Characters of a string field kept in a log line (the rest are counted). */
export const MAX_LOGGED_CHARS = 1024;
/** Keys of one object kept in a log line (the rest are counted). */
const MAX_LOGGED_KEYS = 40;
/** Nesting kept in a log line; deeper values are summarised. */
const MAX_LOGGED_DEPTH = 8;
/** An error's message / stack frames kept in a log line. */
const MAX_ERROR_MESSAGE_CHARS = 512;
const MAX_ERROR_STACK_CHARS = 1536;

/**
 * A list as a log field: how many there are and the first few. The message (or a field) should
 * say where the full list lives (a table such as `indexer.gap`).
 */
export function logList<T>(items: readonly T[], max = 5): { count: number; first: T[] } {
  return { count: items.length, first: items.slice(0, max) };
}

/** A string cut to `max` characters, saying how many were left out. */
export function clipText(s: string, max = MAX_LOGGED_CHARS): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (+${s.length - max} chars)`;
}

/** A string as a log line may carry it: secrets masked first (a cut must not hide half a URL from the masking), then clipped. */
function logText(s: string, max = MAX_LOGGED_CHARS): string {
  return clipText(redactSecrets(s), max);
}

/**
 * The process's logger (one per process, a child per component): JSON lines on stdout, or
 * human-readable text with LOG_FORMAT=pretty (default `auto`: pretty on a terminal, JSON
 * otherwise). Both write synchronously to one stdout stream per process (processStdout), so lines
 * from every logger keep their order and the last line before `process.exit` is never lost.
 * `destination` (tests) replaces stdout.
 */
export function createLogger(
  name: string,
  level: string = process.env.LOG_LEVEL ?? 'info',
  destination?: LogDestination,
  format: LogFormat = logFormatFromEnv(),
): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    base: { pid: process.pid },
    formatters: {
      bindings: (bindings) => safely(bindings, () => boundObject(bindings, 0, new Set(), null)),
      log: (obj) => safely(obj, () => boundObject(obj, 0, new Set(), 'err')),
    },
    serializers: { err: (err: unknown) => safely(err, () => boundErr(err)) },
    hooks: { logMethod: boundArgs, streamWrite: guardLine },
  };
  const tty = (destination === undefined ? process.stdout.isTTY : (destination as { isTTY?: boolean }).isTTY) === true;
  const target = destination ?? processStdout();
  if (format === 'json' || (format === 'auto' && !tty)) return boundChildBindings(pino(options, target));
  const prettyStream = pretty({
    colorize: tty && pretty.isColorSupported,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    sync: true,
    destination: clippingWriter(target),
  });
  return boundChildBindings(pino(options, prettyStream));
}

let stdout: LogDestination | undefined;

/**
 * The one stdout stream every logger of this process writes to, synchronously. A process has
 * several loggers (runProcess's own, the app's); with a stream each, as plain `pino()` gives,
 * their lines raced each other to the pipe ("api: stopped cleanly" printed before "api: drained")
 * and one logged right before `process.exit` could be lost. One stream keeps the order in which
 * lines were logged; synchronous writes keep the last one. Our processes log per batch or per
 * event of note, never per request, so a write per line costs nothing measurable. When something
 * has replaced `process.stdout.write` (a test runner capturing output), lines go through it, as
 * pino itself does.
 */
function processStdout(): LogDestination {
  if (process.stdout.write !== Object.getPrototypeOf(process.stdout).write) return process.stdout;
  return (stdout ??= pino.destination({ dest: process.stdout.fd ?? 1, sync: true }));
}

/**
 * pino applies `formatters.bindings` to the root's bindings only (a child gets a reset
 * formatter): every `child()` of this logger, at any depth (children inherit the method), bounds
 * and redacts its bindings here — `log.child({ rpc: url })` is a common way to log an endpoint.
 */
function boundChildBindings(logger: Logger): Logger {
  const child = logger.child as unknown as (this: Logger, bindings: pino.Bindings, options?: unknown) => Logger;
  logger.child = function (this: Logger, bindings: pino.Bindings, childOptions?: unknown) {
    return child.call(
      this,
      safely(bindings, () => boundObject(bindings, 0, new Set(), null)),
      childOptions,
    );
  } as unknown as Logger['child'];
  return logger;
}

/** LOG_FORMAT as createLogger reads it; the processes also validate it at boot (storageEnvShape). */
export function logFormatFromEnv(env: NodeJS.ProcessEnv = process.env): LogFormat {
  const raw = env.LOG_FORMAT;
  if (raw === undefined || raw === '') return 'auto';
  if ((LOG_FORMATS as readonly string[]).includes(raw)) return raw as LogFormat;
  throw new ConfigError(`invalid configuration: LOG_FORMAT: must be one of ${LOG_FORMATS.join(', ')}`);
}

// ---- bounding the merged object ----------------------------------------------------------------

/** Logging never throws at its caller: a value the bounding cannot read (a throwing getter) goes on as it was. */
function safely<T>(original: T, bounded: () => T): T {
  try {
    return bounded();
  } catch {
    return original;
  }
}

/**
 * `value` bounded for a log line: arrays to their first items plus a count, long strings clipped,
 * many keys or deep nesting summarised. Copy on write: a value within bounds is returned as is
 * (same object), so an ordinary line is exactly what plain pino writes.
 */
function bound(value: unknown, depth: number, seen: Set<object>): unknown {
  if (typeof value === 'string') return logText(value);
  if (value === null || typeof value !== 'object') return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    // What JSON.stringify would write (a Date's string, a Buffer's bytes…), bounded if it must be.
    let json: unknown;
    try {
      json = (toJSON as () => unknown).call(value);
    } catch {
      return value; // pino's stringifier reports it
    }
    const bounded = bound(json, depth, seen);
    return bounded === json ? value : bounded;
  }
  if (seen.has(value)) return value; // pino writes "[Circular]"
  if (ArrayBuffer.isView(value)) return value.byteLength > MAX_LOGGED_KEYS ? `[${value.constructor.name}(${value.byteLength} bytes)]` : value;
  if (Array.isArray(value)) {
    if (depth >= MAX_LOGGED_DEPTH) return `[Array(${value.length})]`;
    seen.add(value);
    const kept = value.length > MAX_LOGGED_ITEMS ? value.slice(0, MAX_LOGGED_ITEMS) : value;
    let changed = kept !== value;
    const out = kept.map((v: unknown) => {
      const b = bound(v, depth + 1, seen);
      if (b !== v) changed = true;
      return b;
    });
    seen.delete(value);
    if (value.length > MAX_LOGGED_ITEMS) out.push(`… ${value.length - MAX_LOGGED_ITEMS} more (${value.length} items in all)`);
    return changed ? out : value;
  }
  return boundObject(value as Record<string, unknown>, depth, seen, null);
}

/** An object's own enumerable fields bounded (what JSON.stringify writes); `skip`: a key left to its serializer. */
function boundObject(obj: Record<string, unknown>, depth: number, seen: Set<object>, skip: string | null): Record<string, unknown> {
  const keys = Object.keys(obj);
  if (depth >= MAX_LOGGED_DEPTH) return { '…': `[Object with ${keys.length} keys]` };
  seen.add(obj);
  const kept = keys.length > MAX_LOGGED_KEYS ? keys.slice(0, MAX_LOGGED_KEYS) : keys;
  let changed = kept !== keys;
  const out: Record<string, unknown> = {};
  for (const key of kept) {
    const v = obj[key];
    // The error key goes through the err serializer (boundErr), which needs the Error itself.
    const b = isSecretKey(key) && v !== undefined && v !== null && v !== REDACTED ? REDACTED : key === skip && isErrorLike(v) ? v : bound(v, depth + 1, seen);
    if (b !== v) changed = true;
    out[key] = b;
  }
  seen.delete(obj);
  if (keys.length > MAX_LOGGED_KEYS) out['…'] = `${keys.length - MAX_LOGGED_KEYS} more keys (${keys.length} in all)`;
  return changed ? out : obj;
}

function isErrorLike(v: unknown): v is Error {
  return typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string';
}

// ---- errors ------------------------------------------------------------------------------------

/** pino's error serializer (type, message, stack, causes, own fields), with its message and stack redacted and clipped. */
function boundErr(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown;
  if (out === err || typeof out !== 'object' || out === null) return bound(out, 1, new Set());
  const e = out as Record<string, unknown>;
  for (const key of Object.keys(e)) {
    const v = e[key];
    if (key === 'message' && typeof v === 'string') e.message = logText(v, MAX_ERROR_MESSAGE_CHARS);
    else if (key === 'stack' && typeof v === 'string') e.stack = clipStack(redactSecrets(v));
    else if (key !== 'type') e[key] = bound(v, 1, new Set());
  }
  return e;
}

/** A stack: its header (the message again) clipped, then the frames up to a budget. */
function clipStack(stack: string): string {
  if (stack.length <= MAX_ERROR_MESSAGE_CHARS + MAX_ERROR_STACK_CHARS) return stack;
  const at = stack.search(/\n\s+at /);
  const [header, frames] = at < 0 ? [stack, ''] : [stack.slice(0, at), stack.slice(at)];
  return clipText(header, MAX_ERROR_MESSAGE_CHARS) + clipText(frames, MAX_ERROR_STACK_CHARS);
}

// ---- the message -------------------------------------------------------------------------------

/** pino's logMethod hook: string arguments (the message, interpolated values) redacted and clipped. */
function boundArgs(this: pino.Logger, args: Parameters<pino.LogFn>, method: pino.LogFn): void {
  let out: unknown[] = args;
  const [first] = args as unknown[];
  // Without a message pino uses the error's: redact and clip it here (the err serializer does its own copy).
  if (typeof first === 'object' && first !== null && args.length === 1) {
    const err = first instanceof Error ? first : (first as { msg?: unknown }).msg === undefined ? (first as { err?: unknown }).err : undefined;
    if (isErrorLike(err) && logText(err.message) !== err.message) out = [first, err.message];
  }
  const cleaned = out.map((a) => (typeof a === 'string' ? logText(a) : a));
  if (cleaned.some((a, i) => a !== out[i])) out = cleaned;
  (method as (...a: unknown[]) => void).apply(this, out);
}

// ---- the final guard ---------------------------------------------------------------------------

/**
 * pino's streamWrite hook, the last word on every JSON line: one still over MAX_LOG_LINE_BYTES
 * (a binding, an odd object) becomes a short valid line keeping level, time, name, the clipped
 * message, the error's type and message, small top-level fields, `truncated: true` and the size.
 */
function guardLine(line: string): string {
  if (line.length * 3 <= MAX_LOG_LINE_BYTES) return line; // cheap: no line this short can be over
  const bytes = Buffer.byteLength(line);
  if (bytes <= MAX_LOG_LINE_BYTES) return line;
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    parsed = {};
  }
  const out: Record<string, unknown> = {};
  for (const key of ['level', 'time', 'pid', 'hostname', 'name']) if (parsed[key] !== undefined) out[key] = parsed[key];
  out.msg = typeof parsed.msg === 'string' ? clipText(parsed.msg, 512) : 'log line over the size limit';
  out.truncated = true;
  out.originalBytes = bytes;
  const err = parsed.err as { type?: unknown; message?: unknown } | undefined;
  if (err && typeof err === 'object') out.err = { type: err.type, message: typeof err.message === 'string' ? clipText(err.message, 256) : undefined };
  // Small top-level fields (component, cluster, a count…), while they fit.
  let text = JSON.stringify(out);
  for (const [key, v] of Object.entries(parsed)) {
    if (key in out || key === 'msg' || key === 'err') continue;
    const small = typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v.length <= 200);
    if (!small) continue;
    const next = JSON.stringify({ ...out, [key]: v });
    if (Buffer.byteLength(next) + 1 > MAX_LOG_LINE_BYTES) continue;
    out[key] = v;
    text = next;
  }
  if (Buffer.byteLength(text) + 1 > MAX_LOG_LINE_BYTES)
    text = JSON.stringify({ level: out.level, time: out.time, name: out.name, msg: 'log line over the size limit', truncated: true, originalBytes: bytes });
  return `${text}\n`;
}

/** Pretty text goes through here: a record printed longer than MAX_LOG_LINE_BYTES is cut, saying so. */
function clippingWriter(target: LogDestination): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      target.write(Buffer.byteLength(text) <= MAX_LOG_LINE_BYTES ? text : clipBytes(text));
      callback();
    },
  });
}

function clipBytes(text: string): string {
  const note = ` … (truncated: ${Buffer.byteLength(text)} bytes)\n`;
  const keep = Buffer.from(text)
    .subarray(0, MAX_LOG_LINE_BYTES - Buffer.byteLength(note))
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return keep + note;
}
