import './explorer.css';
import { isCluster } from './api';
import { parseListState, renderPoolList } from './pool-list.view';
import { renderPoolPage } from './pool-page.view';

/** Hash routes: `#/?cluster=…&query=…&sort_by=…&page=…` the pool table, `#/pools/<cluster>/<address>` one pool. */
let generation = 0;

function route(): void {
  const app = document.getElementById('app');
  if (!app) return;
  const mine = ++generation;
  const alive = () => mine === generation; // a view's late answers are dropped once another view took over
  const hash = window.location.hash.replace(/^#/, '') || '/';
  const q = hash.indexOf('?');
  const path = q < 0 ? hash : hash.slice(0, q);
  const pool = /^\/pools\/([^/]+)\/([^/]+)$/.exec(path);
  if (pool && isCluster(pool[1])) {
    renderPoolPage(app, pool[1], decodeURIComponent(pool[2]), alive);
  } else {
    document.title = 'Hadron Pool Analytics — Explorer';
    renderPoolList(app, parseListState(new URLSearchParams(q < 0 ? '' : hash.slice(q + 1))), alive);
  }
  app.focus({ preventScroll: true });
}

window.addEventListener('hashchange', route);
route();
