/**
 * Secrets never reach a log line or an error message. Endpoints carry credentials in their URLs
 * (an RPC provider's `?api-key=…` or `/<token>/`, `postgres://user:password@…`), and an upstream's
 * error body may echo them: everything written to a log goes through `redactSecrets` (the logger
 * applies it to every string field, message, error message and stack), and code that builds an
 * error message from a URL or an upstream body uses `redactUrl` / `quoteUpstream` at the source,
 * so a thrown error is safe wherever it ends up (a status table, an HTTP body, stderr).
 *
 * What is masked, with `***`:
 * - URL userinfo: `postgres://user:***@host/db` (the user name kept when there is a password, as it
 *   helps debugging), `https://***@host/` (a lone userinfo is a token);
 * - every query value and the fragment: `https://rpc.example/?api-key=***&cluster=***`;
 * - path segments that look like keys: 20 or more characters of `[A-Za-z0-9_-]` (QuickNode's
 *   `https://x.quiknode.pro/<token>/`, Alchemy's `/v2/<key>`, Triton's `/<uuid>`). A long readable
 *   segment is masked too: the cost of a false positive is readability, of a miss a leaked key;
 * - outside URLs: the values of `api-key=`, `password:`, `token=`, `Authorization: Bearer …`,
 *   `Cookie: …` and their kin, and of the header names below when they are object keys (logger).
 * The host and port are never masked: they say which endpoint failed.
 */

export const REDACTED = '***';

/** Header names (and log field names) whose value is a credential. */
export const SECRET_HEADER_NAMES: readonly string[] = ['authorization', 'proxy-authorization', 'x-api-key', 'cookie', 'set-cookie'];

/** Field names the logger masks whatever their value: the headers above and the usual credential names. */
const SECRET_KEY = /^(?:authorization|proxy-authorization|x-api-key|api[-_]?key|apikey|cookie|set-cookie|password|passwd|client[-_]?secret|secret)$/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** A path segment that looks like an API key or token. */
const OPAQUE_SEGMENT = /^[A-Za-z0-9_-]{20,}$/;

/** Cheap first look: a string with none of these has nothing to redact (most log strings). */
const MAY_HOLD_SECRET = /:\/\/|api[-_]?key|apikey|token|secret|passw|pwd|authoriz|cookie|bearer/i;

/** `name=value` / `name: value` (also quoted, as in JSON) where the value is a credential. */
const SECRET_PARAM =
  /\b(api[-_]?key|apikey|x-api-key|password|passwd|pwd|client[-_]?secret|secret|access[-_]?token|refresh[-_]?token|auth[-_]?token|id[-_]?token)(["']?\s*[=:]\s*["']?)(?!\*\*\*)([^\s"'&,;}]+)/gi;
/** `token=value` only with `=`: "token: …" is ordinary prose here (SPL tokens). */
const TOKEN_PARAM = /\b(token)(=)(?!\*\*\*)([^\s"'&,;}]+)/gi;
/** `Authorization: Bearer abc`, `"authorization":"Basic abc"`: the scheme kept, the credential masked. */
const AUTH_HEADER =
  /\b((?:proxy-)?authorization)(["']?\s*[=:]\s*["']?)(?!(?:(?:bearer|basic|token|digest)\s+)?\*\*\*)((?:bearer|basic|token|digest)\s+)?([^\s"',;}]+)/gi;
/** `Cookie: a=b; c=d`: everything up to the end of the line or quote. */
const COOKIE_HEADER = /\b(set-cookie|cookie)(["']?\s*[=:]\s*["']?)(?!\*\*\*)([^\r\n"']+)/gi;
/** A bearer token anywhere. */
const BEARER = /\b(bearer\s+)(?!\*\*\*)([A-Za-z0-9._~+/=-]{8,})/gi;

/**
 * `text` with every credential it carries masked (URLs, `key=value` pairs, auth headers), the rest
 * unchanged: the same string when there was nothing to mask. Linear in the text's length.
 */
export function redactSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text.includes('://') ? redactUrlsIn(text) : text;
  out = out
    .replace(AUTH_HEADER, (_m, name: string, sep: string, scheme: string | undefined) => `${name}${sep}${scheme ?? ''}${REDACTED}`)
    .replace(COOKIE_HEADER, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`)
    .replace(BEARER, (_m, scheme: string) => `${scheme}${REDACTED}`)
    .replace(SECRET_PARAM, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`)
    .replace(TOKEN_PARAM, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`);
  return out === text ? text : out;
}

/**
 * One URL for a log line or an error message: userinfo, query values, fragment and key-like path
 * segments masked (`https://rpc.example/?api-key=***`). Not a URL: `redactSecrets` of it.
 */
export function redactUrl(url: string | URL): string {
  const text = String(url);
  const at = text.indexOf('://');
  if (at < 0 || !isScheme(text.slice(0, at))) return redactSecrets(text);
  return redactSecrets(maskUrl(text, at));
}

/**
 * The values `redactUrl` masks in `url`, as written and percent-decoded: an upstream quoting our
 * request back ("invalid api key SEKRET") is scrubbed of them by `quoteUpstream`.
 */
export function urlSecrets(url: string): string[] {
  const out = new Set<string>();
  const add = (v: string) => {
    if (v.length < 4) return; // "1", "on": masking those everywhere would garble the quote
    out.add(v);
    try {
      out.add(decodeURIComponent(v));
    } catch {
      // not percent-encoded
    }
  };
  const at = url.indexOf('://');
  if (at < 0) return [];
  const { userinfo, path, query, fragment } = splitUrl(url, at);
  if (userinfo !== null) {
    const colon = userinfo.indexOf(':');
    if (colon < 0) add(userinfo);
    else add(userinfo.slice(colon + 1));
  }
  for (const segment of path.split('/')) if (OPAQUE_SEGMENT.test(segment)) add(segment);
  if (query !== null) for (const pair of query.split('&')) add(pair.includes('=') ? pair.slice(pair.indexOf('=') + 1) : OPAQUE_SEGMENT.test(pair) ? pair : '');
  if (fragment !== null) add(fragment);
  return [...out].sort((a, b) => b.length - a.length); // longest first: a value containing another is masked whole
}

/** Headers for a log line: credentials masked (case-insensitive names), everything else as it was. */
export function redactHeaders(headers: Record<string, unknown> | Headers): Record<string, unknown> {
  const entries: [string, unknown][] = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  return Object.fromEntries(
    entries.map(([k, v]) => [k, isSecretKey(k) && v !== undefined && v !== null ? REDACTED : typeof v === 'string' ? redactSecrets(v) : v]),
  );
}

/** Characters of an upstream's body quoted in an error message. */
export const MAX_UPSTREAM_QUOTE_CHARS = 120;

/**
 * Part of an upstream's answer (an error body) fit for an error message: control characters
 * (C0, DEL, C1) and bidirectional overrides replaced by a space — a body cannot forge log lines or
 * terminal escapes —, `secrets` (e.g. `urlSecrets(endpoint)`) and anything `redactSecrets` finds
 * masked, then cut to `max` characters saying how many more there were.
 */
export function quoteUpstream(text: string, opts: { max?: number; secrets?: readonly string[] } = {}): string {
  const max = opts.max ?? MAX_UPSTREAM_QUOTE_CHARS;
  // Masking runs on more than is shown, so a secret straddling the cut is still recognised.
  let out = stripControl(text.length > max + 4096 ? text.slice(0, max + 4096) : text);
  for (const s of opts.secrets ?? []) if (s.length >= 4) out = out.split(s).join(REDACTED);
  out = redactSecrets(out).trim();
  return out.length <= max ? out : `${out.slice(0, max)}… (+${text.length - max} chars)`;
}

/** C0 controls (tab and newlines included), DEL, C1 controls and bidi overrides/isolates → a space. */
export function stripControl(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, ' ');
}

// ---- URLs inside text ------------------------------------------------------------------------

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
const MAX_SCHEME = 32;

function isScheme(s: string): boolean {
  return s.length > 0 && s.length <= MAX_SCHEME && SCHEME.test(s);
}

/** Ends a URL inside text: whitespace, quotes, angle brackets, a backslash (JSON escapes). */
function endsUrl(c: string): boolean {
  return c === '"' || c === "'" || c === '`' || c === '<' || c === '>' || c === '\\' || /\s/.test(c);
}

/** Every `scheme://…` in `text` masked; scanned once, left to right. */
function redactUrlsIn(text: string): string {
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const at = text.indexOf('://', from);
    if (at < 0) break;
    let start = at;
    while (start > 0 && at - start < MAX_SCHEME && /[A-Za-z0-9+.-]/.test(text[start - 1])) start--;
    while (start < at && !/[A-Za-z]/.test(text[start])) start++; // a scheme starts with a letter
    let end = at + 3;
    while (end < text.length && !endsUrl(text[end])) end++;
    // Punctuation closing a sentence or a bracket is not part of the URL ("from https://x/?k=v: …").
    while (end > at + 3 && '.,;:!?)]}'.includes(text[end - 1])) end--;
    if (start < at && start >= copied) {
      out += text.slice(copied, start) + maskUrl(text.slice(start, end), at - start);
      copied = end;
    }
    from = end > at + 3 ? end : at + 3;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

interface UrlParts {
  /** `scheme://` */
  head: string;
  userinfo: string | null;
  hostPort: string;
  path: string;
  query: string | null;
  fragment: string | null;
}

/** `url` split around `://` at `at`; the authority ends at the first `/`, `?` or `#`, userinfo at its last `@`. */
function splitUrl(url: string, at: number): UrlParts {
  const head = url.slice(0, at + 3);
  const rest = url.slice(at + 3);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  let tail = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
  const lastAt = authority.lastIndexOf('@');
  const userinfo = lastAt < 0 ? null : authority.slice(0, lastAt);
  const hostPort = lastAt < 0 ? authority : authority.slice(lastAt + 1);
  let fragment: string | null = null;
  const hash = tail.indexOf('#');
  if (hash >= 0) {
    fragment = tail.slice(hash + 1);
    tail = tail.slice(0, hash);
  }
  let query: string | null = null;
  const q = tail.indexOf('?');
  if (q >= 0) {
    query = tail.slice(q + 1);
    tail = tail.slice(0, q);
  }
  return { head, userinfo, hostPort, path: tail, query, fragment };
}

function maskUrl(url: string, at: number): string {
  const { head, userinfo, hostPort, path, query, fragment } = splitUrl(url, at);
  let out = head;
  if (userinfo !== null) {
    const colon = userinfo.indexOf(':');
    out += colon < 0 ? `${REDACTED}@` : `${userinfo.slice(0, colon)}:${REDACTED}@`;
  }
  out += hostPort;
  out += path
    .split('/')
    .map((s) => (OPAQUE_SEGMENT.test(s) ? REDACTED : s))
    .join('/');
  if (query !== null) {
    out += `?${query
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        if (eq >= 0) return eq === pair.length - 1 ? pair : `${pair.slice(0, eq + 1)}${REDACTED}`;
        return OPAQUE_SEGMENT.test(pair) ? REDACTED : pair;
      })
      .join('&')}`;
  }
  if (fragment !== null) out += fragment === '' ? '#' : `#${REDACTED}`;
  return out;
}
