/** A tiny element builder: text goes in as text nodes (token names come from chain data: never parsed as HTML). */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'class') el.className = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** A visible error box (role=alert: screen readers announce it). */
export function errorBox(message: string): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, message);
}

/** Only https icons are shown (the CSP allows no other origin scheme); anything else is left out. */
export function tokenIcon(url: string, symbol: string): HTMLElement | null {
  if (!/^https:\/\//i.test(url)) return null;
  const img = h('img', { class: 'token-icon', src: url, alt: '', width: 20, height: 20, loading: 'lazy', referrerpolicy: 'no-referrer', title: symbol });
  img.addEventListener('error', () => img.remove());
  return img;
}
