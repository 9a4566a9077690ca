// Wraith's session viewer. It reads the control plane's JSON endpoints
// (/__wraith/session, .../journal, .../diff, .../digest, /__wraith/coverage)
// and writes through two only: reset and fork, each after a confirmation.
//
// Every value from the twin is put on the page as text (textContent), never
// as markup: paths and bodies come from whatever an agent sent. The bearer
// token, when the twin asks for one, lives in this closure only.
'use strict';

(() => {
  // The page is served at /__wraith/ui, so '.' is the control prefix,
  // whatever path a proxy puts in front of it.
  const base = new URL('.', location.href);
  const $ = (id) => document.getElementById(id);
  const enc = encodeURIComponent;
  const PROVENANCES = ['recorded', 'template', 'handler', 'fixture', 'fault', 'miss'];
  const SESSIONS_PAGE = 100; // table rows added per "show more"
  const JOURNAL_PAGE = 500;  // journal entries fetched per call
  const DIGESTS_IN_FLIGHT = 4;

  const state = {
    token: null,        // bearer token, in memory only
    tokenAsked: null,   // promise of the login form's next token
    gen: 0,             // bumps on navigation; stale answers are dropped
    sessions: [],
    matching: [],
    shown: 0,
    session: null,
    journalAfter: null,
    journalWhole: false, // the twin's journal limit is below JOURNAL_PAGE
    selected: null,
  };

  class APIError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  // controlURL is the URL of a control endpoint given as its path segments
  // under /__wraith/ (a session name is one of them) and a query. Each
  // segment is encoded, so no name can add a '/' or a '?'. A dot segment
  // would still be resolved away, encoded or not ('..' would make a
  // session's reset POST /__wraith/reset, the reset of every session), so
  // it is refused, as is an empty one; the twin refuses such names too.
  function controlURL(segments, query) {
    const path = segments.map((s) => {
      const seg = enc(String(s));
      if (seg === '' || /^(?:\.|%2e){1,2}$/i.test(seg)) {
        throw new APIError(400, 'invalid-session',
          `${JSON.stringify(String(s))} cannot be named in a control path: a session name is 1 to 128 characters of A-Z a-z 0-9 . _ : -, not . or ..`);
      }
      return seg;
    });
    const u = new URL(path.join('/'), base);
    if (query) u.search = query;
    return u;
  }

  // api calls the control endpoint at segments (see controlURL) and
  // returns its JSON, or the Response itself with {raw: true}. A 401 shows
  // the token form and retries with what the user enters.
  async function api(segments, opts = {}) {
    const url = controlURL(segments, opts.query);
    for (;;) {
      const headers = new Headers();
      if (state.token) headers.set('Authorization', 'Bearer ' + state.token);
      let body;
      if (opts.body !== undefined) {
        headers.set('Content-Type', 'application/json');
        body = JSON.stringify(opts.body);
      }
      const res = await fetch(url, {
        method: opts.method || 'GET', headers, body,
        credentials: 'omit', cache: 'no-store', redirect: 'error',
      });
      if (res.status === 401) {
        await askToken(state.token ? 'The twin refused that token: check it and enter it again.' : '');
        continue;
      }
      if (!res.ok) {
        let code = 'http-' + res.status;
        let message = res.status + ' ' + res.statusText;
        try {
          const e = (await res.json()).error;
          if (e && e.code) { code = e.code; message = e.message; }
        } catch (_) { /* not the error shape: keep the status line */ }
        throw new APIError(res.status, code, message);
      }
      return opts.raw ? res : res.json();
    }
  }

  // askToken shows the token form and resolves once it is submitted; calls
  // that get a 401 meanwhile wait for the same answer.
  function askToken(why) {
    const err = $('login-error');
    err.textContent = why;
    err.hidden = !why;
    if (!state.tokenAsked) {
      state.tokenAsked = new Promise((resolve) => {
        const form = $('login-form');
        const submit = (ev) => {
          ev.preventDefault();
          state.token = $('login-token').value;
          $('login-token').value = '';
          form.removeEventListener('submit', submit);
          $('login').hidden = true;
          state.tokenAsked = null;
          resolve();
        };
        form.addEventListener('submit', submit);
      });
    }
    $('login').hidden = false;
    $('login-token').focus();
    return state.tokenAsked;
  }

  // el builds an element with a class and text (never markup).
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function setStatus(text, isError) {
    const s = $('status');
    s.textContent = text || '';
    s.className = isError ? 'status error' : 'status';
  }

  function fail(err) {
    const where = err instanceof APIError ? ` (${err.code})` : '';
    setStatus(err.message + where, true);
  }

  function shortDigest(d) {
    return d ? d.replace(/^sha256:/, '').slice(0, 12) : '';
  }

  function show(view) {
    for (const id of ['view-sessions', 'view-session', 'view-coverage']) {
      $(id).hidden = id !== view;
    }
    document.body.dataset.view = view;
    $(view).dataset.state = 'loading';
    setStatus('');
  }

  function ready(view) {
    $(view).dataset.state = 'ready';
  }

  // ---- sessions ----------------------------------------------------------

  async function showSessions() {
    const gen = ++state.gen;
    show('view-sessions');
    const data = await api(['session']);
    if (gen !== state.gen) return;
    const t0 = performance.now();
    state.sessions = data.sessions || [];
    filterSessions();
    void $('sessions').offsetHeight;
    $('view-sessions').dataset.renderMs = (performance.now() - t0).toFixed(1);
    ready('view-sessions');
  }

  function filterSessions() {
    const f = $('filter').value.trim().toLowerCase();
    state.matching = f ? state.sessions.filter((s) => s.session.toLowerCase().includes(f)) : state.sessions;
    state.shown = 0;
    $('sessions').tBodies[0].replaceChildren();
    moreSessions();
  }

  function provisioning(s) {
    const parts = [];
    parts.push(s.fixture ? 'fixture ' + s.fixture : 'no fixture');
    parts.push('seed ' + s.seed);
    if (s.clock) parts.push(s.clock.mode + ' clock');
    if (s.fault_profile) parts.push('faults ' + s.fault_profile);
    if (s.rate_limit) parts.push('rate ' + s.rate_limit);
    if (s.provisioned === false) parts.push('(implicit)');
    return parts.join(' · ');
  }

  function moreSessions() {
    const rows = document.createDocumentFragment();
    const end = Math.min(state.matching.length, state.shown + SESSIONS_PAGE);
    for (let i = state.shown; i < end; i++) {
      const s = state.matching[i];
      const tr = el('tr');
      const name = el('td', 'mono');
      const a = el('a', null, s.session);
      a.href = '#/s/' + enc(s.session);
      name.append(a);
      const digest = el('td', 'mono digest muted', '…');
      digest.dataset.session = s.session;
      tr.append(name, el('td', null, provisioning(s)), el('td', 'num', s.requests ?? 0),
        el('td', 'num', s.entities ?? 0), digest);
      rows.append(tr);
      digests.observe(digest);
    }
    $('sessions').tBodies[0].append(rows);
    state.shown = end;
    $('sessions-more').hidden = state.shown >= state.matching.length;
    $('sessions-count').textContent = state.matching.length === state.sessions.length
      ? `${state.sessions.length} sessions`
      : `${state.matching.length} of ${state.sessions.length} sessions`;
  }

  // Digests are fetched for the rows that scroll into view, a few at a time.
  const digestQueue = [];
  let digestsInFlight = 0;
  const digests = new IntersectionObserver((seen) => {
    for (const e of seen) {
      if (!e.isIntersecting) continue;
      digests.unobserve(e.target);
      digestQueue.push(e.target);
    }
    pumpDigests();
  });

  function pumpDigests() {
    while (digestsInFlight < DIGESTS_IN_FLIGHT && digestQueue.length > 0) {
      const cell = digestQueue.shift();
      if (!cell.isConnected) continue;
      digestsInFlight++;
      api(['session', cell.dataset.session, 'digest']).then((d) => {
        cell.textContent = shortDigest(d.digest);
        cell.title = d.digest;
        cell.classList.remove('muted');
      }, (err) => {
        cell.textContent = err.code || 'error';
        cell.title = err.message;
      }).finally(() => {
        digestsInFlight--;
        pumpDigests();
      });
    }
  }

  // ---- one session -------------------------------------------------------

  async function showSession(name) {
    const gen = ++state.gen;
    show('view-session');
    state.session = name;
    state.selected = null;
    $('session-name').textContent = name;
    $('session-summary').textContent = '';
    $('journal').tBodies[0].replaceChildren();
    $('exchange').hidden = true;
    $('diff').replaceChildren();
    $('journal-more').hidden = true;
    const t0 = performance.now();
    const [journal, diff] = await Promise.all([
      journalPage(name, null),
      api(['session', name, 'diff']),
    ]);
    if (gen !== state.gen) return;
    const t1 = performance.now();
    addJournal(journal);
    renderDiff(diff);
    // Reading a layout property makes the browser lay the rows out now, so
    // the figure includes layout, not only building the DOM.
    void $('journal').offsetHeight;
    const t2 = performance.now();
    const view = $('view-session');
    view.dataset.renderMs = (t2 - t1).toFixed(1);
    view.dataset.loadMs = (t2 - t0).toFixed(1);
    ready('view-session');
  }

  async function moreJournal() {
    const gen = state.gen;
    const name = state.session;
    const page = await journalPage(name, state.journalAfter);
    if (gen !== state.gen) return;
    addJournal(page);
  }

  // journalPage fetches up to JOURNAL_PAGE entries after index after (null:
  // from the oldest). A twin whose --journal-limit is below JOURNAL_PAGE
  // refuses that limit; its whole journal is then one page.
  async function journalPage(name, after) {
    const from = after === null ? '' : `&after=${enc(after)}`;
    if (!state.journalWhole) {
      try {
        const page = await api(['session', name, 'journal'], { query: `limit=${JOURNAL_PAGE}${from}` });
        page.limit = JOURNAL_PAGE;
        return page;
      } catch (err) {
        if (!(err instanceof APIError) || err.status !== 400) throw err;
        state.journalWhole = true;
      }
    }
    return api(['session', name, 'journal'], { query: from.slice(1) });
  }

  function addJournal(page) {
    const entries = page.entries || [];
    const rows = document.createDocumentFragment();
    for (const e of entries) {
      const tr = el('tr', 'p-' + e.provenance);
      tr.dataset.index = e.index;
      tr.tabIndex = 0;
      // A webhook delivery the twin made (provenance webhook) shows its
      // event and attempt where a request shows its route, its endpoint's
      // URL as the path, and why it failed (with its next attempt) as
      // its fault.
      const d = e.delivery;
      tr.append(
        el('td', 'num', e.index),
        el('td', 'mono', e.at),
        el('td', 'mono', e.method),
        el('td', 'mono', d ? `webhook ${d.event} #${d.attempt}` : routeOf(e) || '—'),
        el('td', 'mono path', d ? d.url : e.path),
        el('td', 'num', e.status === 0 ? (d ? 'none' : 'reset') : e.status),
        provenanceCell(e.provenance),
        el('td', 'mono', d ? deliveryFault(d) : e.fault || ''),
        el('td', 'num', e.latency_ms === undefined ? '' : e.latency_ms + ' ms'),
      );
      rows.append(tr);
    }
    const body = $('journal').tBodies[0];
    body.append(rows);
    // next_after names the last entry sent; a full page may have more.
    const more = page.next_after !== null && page.next_after !== undefined && entries.length === page.limit;
    state.journalAfter = more ? page.next_after : null;
    $('journal-more').hidden = !more;
    let count = `${body.rows.length} entries`;
    if (more) count += ', more on request';
    if (page.dropped) count += `, ${page.dropped} older dropped (--journal-limit)`;
    $('journal-count').textContent = count;
  }

  // deliveryFault is why a delivery attempt failed, and when the next one
  // is due on the session's clock.
  function deliveryFault(d) {
    if (!d.error) return '';
    return d.retry_at ? `${d.error} (retry at ${d.retry_at})` : d.error;
  }

  // routeOf is an entry's route template without the method it starts with.
  function routeOf(e) {
    const r = e.route || '';
    return r.startsWith(e.method + ' ') ? r.slice(e.method.length + 1) : r;
  }

  function provenanceCell(p) {
    const td = el('td');
    td.append(el('span', 'chip p-' + p, p));
    return td;
  }

  // showExchange shows the request and answer of one journal entry, as the
  // HAR export has them (scrubbed as on the wire).
  async function showExchange(index) {
    const gen = state.gen;
    state.selected = index;
    for (const tr of $('journal').querySelectorAll('tr.selected')) tr.classList.remove('selected');
    const row = $('journal').querySelector(`tr[data-index="${index}"]`);
    if (row) row.classList.add('selected');
    const after = index > 0 ? `&after=${index - 1}` : '';
    const har = await api(['session', state.session, 'journal'], { query: `format=har&limit=1${after}` });
    if (gen !== state.gen || state.selected !== index) return;
    const entry = ((har.log && har.log.entries) || []).find((e) => e._wraith && e._wraith.index === index);
    $('exchange').hidden = false;
    $('exchange').dataset.index = index;
    if (!entry) {
      $('exchange-title').textContent = `#${index}`;
      $('exchange-request').textContent = 'This entry is no longer in the journal.';
      $('exchange-response').textContent = '';
      return;
    }
    $('exchange-title').textContent = `#${index} ${entry.request.method} ${routeOf({ method: entry.request.method, route: entry._wraith.route })}`;
    $('exchange-request').textContent = httpRequest(entry.request);
    $('exchange-response').textContent = httpResponse(entry.response);
  }

  function headerLines(headers) {
    return (headers || []).map((h) => `${h.name}: ${h.value}`).join('\n');
  }

  function bodyText(text, mime) {
    if (!text) return '';
    if (/json/.test(mime || '')) {
      try { return JSON.stringify(JSON.parse(text), null, 2); } catch (_) { /* as sent */ }
    }
    return text;
  }

  function httpRequest(r) {
    const post = r.postData || {};
    return `${r.method} ${r.url} ${r.httpVersion || ''}\n${headerLines(r.headers)}\n\n${bodyText(post.text, post.mimeType)}`;
  }

  function httpResponse(r) {
    const status = r.status === 0 ? '(connection reset, no answer)' : `${r.status} ${r.statusText || ''}`;
    const c = r.content || {};
    return `${r.httpVersion || ''} ${status}\n${headerLines(r.headers)}\n\n${bodyText(c.text, c.mimeType)}`;
  }

  function entityLabel(x) {
    return `${x.object || 'entity'} ${x.id || ''}`;
  }

  function jsonBlock(v) {
    return el('pre', 'json', JSON.stringify(v, null, 2));
  }

  function renderDiff(d) {
    const box = $('diff');
    const created = d.created || [];
    const updated = d.updated || [];
    const deleted = d.deleted || [];
    if (created.length + updated.length + deleted.length === 0) {
      box.append(el('p', 'muted', 'No changes: the world is as provisioned.'));
      return;
    }
    const section = (cls, title, items, render) => {
      if (items.length === 0) return;
      const s = el('div', 'diff ' + cls);
      s.append(el('h4', null, `${title} (${items.length})`));
      for (const x of items) s.append(render(x));
      box.append(s);
    };
    section('created', 'Created', created, (x) => {
      const det = el('details', 'entity');
      det.dataset.id = x.id || '';
      det.append(el('summary', 'mono', entityLabel(x)), jsonBlock(x));
      return det;
    });
    section('updated', 'Updated', updated, (x) => {
      const det = el('details', 'entity');
      det.dataset.id = x.id || '';
      const pair = el('div', 'pair');
      const before = el('div');
      before.append(el('h5', null, 'before'), jsonBlock(x.before));
      const after = el('div');
      after.append(el('h5', null, 'after'), jsonBlock(x.after));
      pair.append(before, after);
      det.append(el('summary', 'mono', entityLabel(x)), pair);
      return det;
    });
    section('deleted', 'Deleted', deleted, (x) => {
      const p = el('p', 'mono entity', entityLabel(x));
      p.dataset.id = x.id || '';
      return p;
    });
  }

  async function download(segments, query, filename) {
    const res = await api(segments, { raw: true, query });
    const url = URL.createObjectURL(await res.blob());
    const a = el('a');
    a.href = url;
    a.download = filename;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  // ---- actions: the page's only writes -----------------------------------

  // confirmAction asks in the page's dialog; with an input it resolves to
  // what was typed, else to true; null when cancelled. The answer is taken
  // from the button that submitted the form (or Escape), not from the
  // dialog's close event: that event is queued, and one from an earlier
  // dialog can arrive after the next one has opened.
  let settleConfirm = null;

  function confirmAction(text, okLabel, input) {
    if (settleConfirm) settleConfirm(null);
    return new Promise((resolve) => {
      const d = $('confirm');
      $('confirm-text').textContent = text;
      $('confirm-ok').textContent = okLabel;
      $('confirm-input-label').hidden = input === undefined;
      $('confirm-input').required = input !== undefined;
      $('confirm-input').value = input || '';
      settleConfirm = (answer) => {
        settleConfirm = null;
        if (answer === null) resolve(null);
        else resolve(input === undefined ? true : $('confirm-input').value.trim());
      };
      d.showModal();
    });
  }

  function wireConfirm() {
    const d = $('confirm');
    const settle = (ok) => { if (settleConfirm) settleConfirm(ok ? true : null); };
    $('confirm-form').addEventListener('submit', (ev) => settle(ev.submitter && ev.submitter.value === 'ok'));
    d.addEventListener('cancel', () => settle(false));
    // Closed some other way while still asking: that is a no.
    d.addEventListener('close', () => { if (!d.open) settle(false); });
  }

  async function resetSession() {
    const name = state.session;
    const ok = await confirmAction(`Reset session ${name} to just-provisioned? Its entities, ids, clock and journal go back to the start.`, 'Reset');
    if (!ok) return;
    await api(['session', name, 'reset'], { method: 'POST' });
    await showSession(name);
    setStatus(`Session ${name} was reset.`);
  }

  async function forkSession() {
    const name = state.session;
    const to = await confirmAction(`Fork session ${name}: the new session starts as a copy of its world and goes on independently.`, 'Fork', name + '-fork');
    if (!to) return;
    const res = await api(['session', name, 'fork'], { method: 'POST', body: { session: to } });
    $('filter').value = '';
    if (location.hash === '#/') await showSessions();
    else location.hash = '#/';
    setStatus(`Forked ${res.from || name} into ${res.session || to} (${res.entities ?? '?'} entities).`);
  }

  // ---- coverage ----------------------------------------------------------

  async function showCoverage() {
    const gen = ++state.gen;
    show('view-coverage');
    const cov = await api(['coverage']);
    if (gen !== state.gen) return;
    const misses = document.createDocumentFragment();
    for (const m of cov.misses || []) {
      const li = el('li', 'miss');
      li.append(el('span', 'num', `${m.count}×`), ' ', el('span', 'mono', `${m.method} ${m.path}`));
      const who = Array.isArray(m.sessions) ? `${m.sessions.length} sessions: ${m.sessions.slice(0, 5).join(', ')}${m.sessions.length > 5 ? ', …' : ''}` : `${m.sessions} sessions`;
      li.append(el('span', 'muted', ` — ${who}; first ${m.first_at || '?'}, last ${m.last_at || '?'}`));
      misses.append(li);
    }
    $('misses').replaceChildren(misses);
    if (!(cov.misses || []).length) $('misses').append(el('li', 'muted', 'No misses: every request found a route.'));
    const rows = document.createDocumentFragment();
    for (const r of cov.routes || []) {
      const tr = el('tr');
      tr.append(el('td', 'mono', r.method), el('td', 'mono', r.route));
      for (const p of PROVENANCES) {
        const n = (r.hits || {})[p] || 0;
        tr.append(el('td', n ? 'num p-' + p : 'num muted', n));
      }
      rows.append(tr);
    }
    $('routes').tBodies[0].replaceChildren(rows);
    ready('view-coverage');
  }

  // ---- wiring ------------------------------------------------------------

  function route() {
    const h = location.hash;
    let p;
    // Decoded inside the promise: a malformed escape (#/s/%E0) is shown
    // as an error, not thrown out of the event handler.
    if (h.startsWith('#/s/')) p = Promise.resolve().then(() => showSession(decodeURIComponent(h.slice(4))));
    else if (h === '#/coverage') p = showCoverage();
    else p = showSessions();
    p.catch(fail);
  }

  function on(id, event, f) {
    $(id).addEventListener(event, (ev) => {
      const p = f(ev);
      if (p && p.catch) p.catch(fail);
    });
  }

  function legend() {
    const box = $('legend');
    for (const p of PROVENANCES) box.append(el('span', 'chip p-' + p, p));
    box.append(el('span', 'chip p-webhook', 'webhook')); // a delivery the twin made, no answer of its own
  }

  document.addEventListener('DOMContentLoaded', () => {
    legend();
    wireConfirm();
    on('filter', 'input', filterSessions);
    on('sessions-more', 'click', moreSessions);
    on('sessions-refresh', 'click', showSessions);
    on('journal-more', 'click', moreJournal);
    on('download-har', 'click', () => download(['session', state.session, 'journal'], 'format=har', `${state.session}.har`));
    on('download-snapshot', 'click', () => download(['session', state.session, 'snapshot'], '', `${state.session}.snapshot.json`));
    on('action-reset', 'click', resetSession);
    on('action-fork', 'click', forkSession);
    $('journal').tBodies[0].addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr');
      if (tr) showExchange(Number(tr.dataset.index)).catch(fail);
    });
    $('journal').tBodies[0].addEventListener('keydown', (ev) => {
      const tr = ev.target.closest('tr');
      if (tr && ev.key === 'Enter') showExchange(Number(tr.dataset.index)).catch(fail);
    });
    window.addEventListener('hashchange', route);
    api(['info']).then((i) => {
      $('twin').textContent = `${i.twin} · ${shortDigest(i.digest)} · wraith ${i.wraith_version || ''}`;
    }, () => {});
    route();
  });
})();
