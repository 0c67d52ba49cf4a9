// The explorer's page: Preact components written with htm (tagged templates, no build step).
// Every figure comes from the admin API (/admin/v1/..., described by /admin/openapi.json);
// transactions, requests and world changes arrive live on its event stream (/admin/v1/events).
import { h, render } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import htm from 'htm';

const html = htm.bind(h);

const PAGE_SIZE = 50;
const MAX_REQUESTS = 500;
const TOKEN_KEY = 'token-registry.explorer.token';
const SNAPSHOTS_KEY = 'token-registry.explorer.snapshots';

// ---- the admin API -----------------------------------------------------------------------------

function authHeaders() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { authorization: `Bearer ${token}` } : {};
}

class ApiError extends Error {}

/** One admin API call; its `{"error"}` answer becomes an ApiError with the API's own words. */
async function api(method, path, body) {
  const headers = { ...authHeaders() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ApiError(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  }
  if (!res.ok) throw new ApiError(json && typeof json.error === 'string' ? json.error : `${method} ${path}: ${res.status}`);
  return json;
}

const get = (path) => api('GET', path);
const post = (path, body) => api('POST', path, body);

/**
 * Follows the event stream, with the token in a header (EventSource cannot send one): parses the
 * `text/event-stream` blocks and calls onEvent(type, data). Reconnects a second after it ends.
 */
function followEvents(onEvent, onState) {
  let stopped = false;
  let controller;
  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const res = await fetch('/admin/v1/events', { headers: authHeaders(), signal: controller.signal });
        if (!res.ok || !res.body) {
          const answer = await res.json().catch(() => null);
          throw new ApiError(`event stream: ${answer && typeof answer.error === 'string' ? answer.error : res.status}`);
        }
        onState('live');
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let type = 'message';
            const data = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) type = line.slice(7);
              else if (line.startsWith('data: ')) data.push(line.slice(6));
            }
            if (data.length > 0) onEvent(type, JSON.parse(data.join('\n')));
          }
        }
        if (!stopped) onState('reconnecting');
      } catch (e) {
        if (stopped) return;
        // Refused (a missing or wrong token): say so, and try again less often.
        onState(e instanceof ApiError ? e.message : 'reconnecting');
        if (e instanceof ApiError) await new Promise((r) => setTimeout(r, 4000));
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 1000));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}

// ---- small helpers ---------------------------------------------------------------------------

const CONTRACT_ID = /^00[0-9a-f]{64,}$/;

function shortId(id) {
  return id.length > 24 ? `${id.slice(0, 12)}…${id.slice(-6)}` : id;
}

/** `pkg:Module:Entity` → `Module:Entity` (the package id in the title). */
function templateName(templateId) {
  const parts = templateId.split(':');
  return parts.length >= 3 ? parts.slice(1).join(':') : templateId;
}

/** `pkg:Module:Entity` → `Entity`, what a list shows (the full id in the title). */
function entityName(templateId) {
  return templateId.slice(templateId.lastIndexOf(':') + 1);
}

function time(iso) {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
}

function useHashRoute() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  const m = /^#\/(contract|transaction)\/(.+)$/.exec(hash);
  return m ? { page: m[1], id: decodeURIComponent(m[2]) } : { page: 'home' };
}

// ---- components ------------------------------------------------------------------------------

function Party({ id, names }) {
  const name = names.get(id);
  return html`<span class="party" title=${id}>${name ?? shortId(id)}</span>`;
}

function Parties({ ids, names }) {
  if (!ids || ids.length === 0) return html`<span class="muted">none</span>`;
  return ids.map((p, i) => html`${i > 0 ? ', ' : ''}<${Party} id=${p} names=${names} />`);
}

function ContractLink({ id }) {
  return html`<a class="cid" href=${`#/contract/${encodeURIComponent(id)}`} title=${id}>${shortId(id)}</a>`;
}

function TxLink({ id, label }) {
  return html`<a class="uid" href=${`#/transaction/${encodeURIComponent(id)}`} title=${id}>${label ?? shortId(id)}</a>`;
}

/** A Daml value (JSON API encoding) as a tree; contract ids link to their page, parties show by name. */
function Value({ value, names, label = null, depth = 0 }) {
  const key = label === null ? '' : html`<span class="key">${label}</span>: `;
  if (value === null || value === undefined) return html`<span>${key}<span class="muted">null</span></span>`;
  if (typeof value !== 'object') return html`<span>${key}<${Scalar} value=${value} names=${names} /></span>`;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const shape = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  if (entries.length === 0) return html`<span>${key}<span class="muted">${Array.isArray(value) ? '[]' : '{}'}</span></span>`;
  return html`<details class="value" open=${depth < 2}>
    <summary>${key}<span class="muted">${shape}</span></summary>
    <ul>
      ${entries.map(([k, v]) => html`<li><${Value} value=${v} names=${names} label=${k} depth=${depth + 1} /></li>`)}
    </ul>
  </details>`;
}

function Scalar({ value, names }) {
  if (typeof value === 'string') {
    if (CONTRACT_ID.test(value)) return html`<${ContractLink} id=${value} />`;
    if (names.has(value)) return html`<${Party} id=${value} names=${names} />`;
    return html`<span class="str">"${value}"</span>`;
  }
  return html`<span class="num">${String(value)}</span>`;
}

/** One event with its children (an exercise's consequences), as nested disclosures. */
function EventNode({ event, children, names }) {
  const label =
    event.kind === 'created'
      ? html`<span class="badge created">created</span> <span title=${event.templateId}>${entityName(event.templateId)}</span>`
      : html`<span class="badge exercised">exercised</span>${event.consuming ? html` <span class="badge archived">archived</span>` : ''}
          ${' '}<strong>${event.choice}</strong> on <span title=${event.templateId}>${entityName(event.templateId)}</span>`;
  return html`<li>
    <details class="event" data-kind=${event.kind}>
      <summary>${label} <span class="muted">#${event.nodeId}</span></summary>
      <dl class="facts">
        <dt>Contract</dt><dd><${ContractLink} id=${event.contractId} /></dd>
        <dt>Template</dt><dd title=${event.templateId}>${event.packageName}:${templateName(event.templateId)}</dd>
        ${event.kind === 'created'
          ? html`<dt>Signatories</dt><dd><${Parties} ids=${event.signatories} names=${names} /></dd>
              <dt>Observers</dt><dd><${Parties} ids=${event.observers} names=${names} /></dd>
              <dt>Payload</dt><dd><${Value} value=${event.payload} names=${names} /></dd>`
          : html`${event.interfaceId ? html`<dt>Interface</dt><dd title=${event.interfaceId}>${templateName(event.interfaceId)}</dd>` : ''}
              <dt>Acting parties</dt><dd><${Parties} ids=${event.actingParties} names=${names} /></dd>
              <dt>Choice argument</dt><dd><${Value} value=${event.choiceArgument} names=${names} /></dd>
              <dt>Result</dt><dd><${Value} value=${event.exerciseResult} names=${names} /></dd>`}
      </dl>
      ${children.length > 0 ? html`<ul class="tree">${children}</ul>` : ''}
    </details>
  </li>`;
}

function EventTree({ events, names }) {
  const byParent = new Map();
  for (const e of events) {
    const k = e.parentNodeId ?? -1;
    if (!byParent.has(k)) byParent.set(k, []);
    byParent.get(k).push(e);
  }
  const build = (parent) =>
    (byParent.get(parent) ?? []).map((e) => html`<${EventNode} key=${e.nodeId} event=${e} names=${names} children=${build(e.nodeId)} />`);
  return html`<ul class="tree" aria-label="Events">${build(-1)}</ul>`;
}

function Roots({ tx }) {
  return tx.roots.map(
    (r, i) => html`${i > 0 ? '; ' : ''}<span title=${r.templateId}>${r.kind === 'created' ? `created ${entityName(r.templateId)}` : `${r.choice} on ${entityName(r.templateId)}`}</span>`,
  );
}

function TransactionRow({ tx, names, participant }) {
  const [open, setOpen] = useState(false);
  const [detail, setDetail] = useState(null);
  const [error, setError] = useState(null);
  // The body is built only once opened: the first view stays small however long the list.
  const onToggle = (e) => {
    const isOpen = e.currentTarget.open;
    setOpen(isOpen);
    if (isOpen && !detail) {
      get(`/admin/v1/transactions/${encodeURIComponent(tx.updateId)}?participant=${encodeURIComponent(participant)}`)
        .then(setDetail)
        .catch((err) => setError(err.message));
    }
  };
  return html`<li class="tx" data-offset=${tx.offset} data-update-id=${tx.updateId}>
    <details onToggle=${onToggle}>
      <summary>
        <span class="offset">#${tx.offset}</span>
        <span class="muted">${time(tx.recordTime)}</span>
        <span class="roots"><${Roots} tx=${tx} /></span>
        <span class="acting">by <${Parties} ids=${tx.actAs} names=${names} /></span>
      </summary>
      ${open
        ? html`<dl class="facts">
              <dt>Update id</dt><dd><${TxLink} id=${tx.updateId} label=${tx.updateId} /></dd>
              <dt>Command id</dt><dd>${tx.commandId || html`<span class="muted">(not the submitter's participant)</span>`}</dd>
              <dt>User</dt><dd>${tx.userId}</dd>
              <dt>Acting parties</dt><dd><${Parties} ids=${tx.actAs} names=${names} /></dd>
              <dt>Events</dt><dd>${tx.eventCount}</dd>
            </dl>
            ${error ? html`<p role="alert" class="error">${error}</p>` : detail ? html`<${EventTree} events=${detail.events} names=${names} />` : html`<p class="muted">Loading events…</p>`}`
        : ''}
    </details>
  </li>`;
}

function Transactions({ participant, names, parties, feed }) {
  const [txs, setTxs] = useState([]);
  const [nextBefore, setNextBefore] = useState(null);
  const [party, setParty] = useState('');
  const [shown, setShown] = useState(participant);
  const [error, setError] = useState(null);
  // Until the live feed names the participants, the first one (the API's default).
  const query = (extra) => {
    const q = new URLSearchParams({ limit: String(PAGE_SIZE), ...extra });
    if (participant) q.set('participant', participant);
    if (party) q.set('party', party);
    return q;
  };
  const first = useCallback(() => {
    get(`/admin/v1/transactions?${query({})}`)
      .then((page) => {
        setTxs(page.transactions);
        setNextBefore(page.nextBefore);
        setShown(page.participantId);
        setError(null);
      })
      .catch((e) => setError(e.message));
  }, [participant, party]);
  useEffect(first, [first, feed.world]);
  // A live transaction: put on top when it follows the newest shown, else reload the first page.
  useEffect(() => {
    const tx = feed.transaction;
    if (!tx || tx.participantId !== (participant || shown)) return;
    if (party) return first();
    setTxs((list) => {
      const top = list.length > 0 ? list[0].offset : 0;
      if (tx.offset <= top) return list;
      if (tx.offset !== top + 1) {
        first();
        return list;
      }
      return [tx, ...list];
    });
  }, [feed.transaction]);
  const older = () => {
    get(`/admin/v1/transactions?${query({ before: String(nextBefore) })}`)
      .then((page) => {
        setTxs((list) => [...list, ...page.transactions.filter((t) => t.offset < (list.length ? list[list.length - 1].offset : Infinity))]);
        setNextBefore(page.nextBefore);
      })
      .catch((e) => setError(e.message));
  };
  return html`<section aria-labelledby="transactions-heading" class="panel">
    <h2 id="transactions-heading">Transactions <span class="muted">newest first, live</span></h2>
    <label>Witnessed by
      <select value=${party} onChange=${(e) => setParty(e.currentTarget.value)}>
        <option value="">anyone</option>
        ${parties.map((p) => html`<option value=${p.party}>${p.name ?? shortId(p.party)}</option>`)}
      </select>
    </label>
    ${error ? html`<p role="alert" class="error">${error}</p>` : ''}
    <ol class="txs" aria-label="Transactions">
      ${txs.map((tx) => html`<${TransactionRow} key=${`${tx.participantId}/${tx.offset}/${tx.updateId}`} tx=${tx} names=${names} participant=${tx.participantId} />`)}
    </ol>
    ${txs.length === 0 ? html`<p class="muted">No transactions.</p>` : ''}
    ${nextBefore !== null ? html`<button type="button" onClick=${older}>Load older transactions</button>` : ''}
  </section>`;
}

function World({ world, names }) {
  const { parties, users, instruments, balances } = world;
  return html`<section aria-labelledby="world-heading" class="panel">
    <h2 id="world-heading">World</h2>
    <h3>Parties</h3>
    <table>
      <thead><tr><th scope="col">Name</th><th scope="col">Party id</th><th scope="col">Hosted on</th><th scope="col">External keys</th></tr></thead>
      <tbody>
        ${parties.map(
          (p) => html`<tr>
            <td>${p.name ?? html`<span class="muted">—</span>`}</td>
            <td class="mono" title=${p.party}>${shortId(p.party)}</td>
            <td>${p.hostedOn.map((hh, i) => html`${i > 0 ? ', ' : ''}<span title=${hh.participantId}>${hh.participantId.split('::')[0]}</span> (${hh.permission})`)}</td>
            <td>${p.external ? html`${p.external.keys.map((k) => html`<span class="mono" title=${k.fingerprint}>${shortId(k.fingerprint)}</span> ${k.spec}`)} (threshold ${p.external.threshold})` : html`<span class="muted">local</span>`}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    <h3>Instruments</h3>
    <table>
      <thead><tr><th scope="col">Instrument</th><th scope="col">Admin</th><th scope="col">Kind</th><th scope="col" class="num">Supply</th><th scope="col" class="num">Holders</th></tr></thead>
      <tbody>
        ${instruments.map(
          (i) => html`<tr>
            <td>${i.instrument.id}</td>
            <td><${Party} id=${i.instrument.admin} names=${names} /></td>
            <td>${i.kind}</td>
            <td class="num">${i.supply}</td>
            <td class="num">${i.holders}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    <h3>Balances</h3>
    <table>
      <thead><tr><th scope="col">Party</th><th scope="col">Instrument</th><th scope="col" class="num">Unlocked</th><th scope="col" class="num">Locked</th></tr></thead>
      <tbody>
        ${balances.map(
          (b) => html`<tr>
            <td><${Party} id=${b.party} names=${names} /></td>
            <td>${b.instrument.id}</td>
            <td class="num">${b.amount}</td>
            <td class="num">${b.locked}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    <details>
      <summary><h3 class="inline">Users (${users.length})</h3></summary>
      <table>
        <thead><tr><th scope="col">Participant</th><th scope="col">User</th><th scope="col">Primary party</th><th scope="col">Rights</th></tr></thead>
        <tbody>
          ${users.map(
            (u) => html`<tr>
              <td title=${u.participantId}>${u.participantId.split('::')[0]}</td>
              <td>${u.id}${u.isDeactivated ? html` <span class="muted">(deactivated)</span>` : ''}</td>
              <td>${u.primaryParty ? html`<${Party} id=${u.primaryParty} names=${names} />` : html`<span class="muted">—</span>`}</td>
              <td>${u.rights.map((r, i) => html`${i > 0 ? ', ' : ''}${r.kind}${r.party ? html` <${Party} id=${r.party} names=${names} />` : ''}`)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </details>
  </section>`;
}

function Requests({ requests }) {
  return html`<section aria-labelledby="requests-heading" class="panel">
    <h2 id="requests-heading">Registry, scan and validator requests <span class="muted">last minutes, newest first</span></h2>
    ${requests.length === 0
      ? html`<p class="muted">No requests yet.</p>`
      : html`<table class="requests">
          <thead><tr><th scope="col">Time</th><th scope="col">Service</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col" class="num">Status</th><th scope="col" class="num">ms</th></tr></thead>
          <tbody>
            ${requests.map(
              (r) => html`<tr class=${r.status >= 400 ? 'failed' : ''}>
                <td>${time(r.time)}</td><td>${r.service}</td><td>${r.method}</td><td class="mono">${r.path}</td><td class="num">${r.status}</td><td class="num">${r.ms}</td>
              </tr>`,
            )}
          </tbody>
        </table>`}
  </section>`;
}

function Actions({ world, clock, onDone, say }) {
  const [snapshots, setSnapshots] = useState(() => JSON.parse(sessionStorage.getItem(SNAPSHOTS_KEY) ?? '[]'));
  const [chosen, setChosen] = useState('');
  const [seconds, setSeconds] = useState('3600');
  const [instrument, setInstrument] = useState('');
  const [owner, setOwner] = useState('');
  const [amount, setAmount] = useState('100');
  const [busy, setBusy] = useState(false);
  const instruments = world.instruments.filter((i) => i.kind !== 'other');
  const owners = world.parties.filter((p) => p.hostedOn.length > 0);
  const run = (what, f) => async () => {
    setBusy(true);
    try {
      say(await f(), false);
      onDone();
    } catch (e) {
      say(`${what} failed: ${e.message}`, true);
    } finally {
      setBusy(false);
    }
  };
  const remember = (list) => {
    setSnapshots(list);
    sessionStorage.setItem(SNAPSHOTS_KEY, JSON.stringify(list));
  };
  const snapshot = run('Snapshot', async () => {
    const s = await post('/admin/v1/snapshots');
    remember([s.id, ...snapshots.filter((x) => x !== s.id)]);
    setChosen(s.id);
    return `Saved ${s.id} (ledger ends ${s.ledgerEnds.join(', ')}).`;
  });
  const restore = run('Restore', async () => {
    const id = (chosen || snapshots[0] || '').trim();
    if (!id) throw new ApiError('take a snapshot first, or give a snapshot id');
    const r = await post(`/admin/v1/snapshots/${encodeURIComponent(id)}/restore`);
    return `Restored ${r.id} (ledger ends ${r.ledgerEnds.join(', ')}).`;
  });
  const reset = run('Reset', async () => {
    const r = await post('/admin/v1/reset');
    return `Reset to the seeded world (ledger ends ${r.ledgerEnds.join(', ')}).`;
  });
  const advance = run('Advancing the clock', async () => {
    const r = await post('/admin/v1/clock/advance', { seconds: Number(seconds) });
    return `Ledger time is now ${time(r.now)}.`;
  });
  const mintTo = () => ({ instrument: instrument || instruments[0]?.instrument.id, owner: owner || owners[0]?.party });
  const mint = run('Mint', async () => {
    const r = await post('/admin/v1/mint', { ...mintTo(), amount });
    return `Minted ${amount} ${mintTo().instrument}: contract ${shortId(r.contractId)}.`;
  });
  const fund = run('Fund', async () => {
    const r = await post('/admin/v1/fund', { ...mintTo(), atLeast: amount });
    return r.minted ? `Funded: balance ${r.balance}.` : `Nothing to do: balance already ${r.balance}.`;
  });
  return html`<section aria-labelledby="actions-heading" class="panel actions">
    <h2 id="actions-heading">Between tests</h2>
    <div class="groups">
    <fieldset>
      <legend>Snapshots</legend>
      <button type="button" onClick=${snapshot} disabled=${busy}>Snapshot</button>
      <label>Snapshot id
        <input type="text" list="snapshot-ids" size="12" placeholder=${snapshots.length === 0 ? 'take one first' : ''} value=${chosen || snapshots[0] || ''} onInput=${(e) => setChosen(e.currentTarget.value)} />
        <datalist id="snapshot-ids">${snapshots.map((s) => html`<option value=${s} />`)}</datalist>
      </label>
      <button type="button" onClick=${restore} disabled=${busy || !(chosen || snapshots[0])}>Restore</button>
      <button type="button" onClick=${reset} disabled=${busy}>Reset</button>
    </fieldset>
    <fieldset>
      <legend>Ledger time: <time datetime=${clock?.now}>${clock ? time(clock.now) : '…'}</time>${clock && clock.skewSeconds > 0 ? html` <span class="muted">(+${clock.skewSeconds} s)</span>` : ''}</legend>
      <label>Seconds <input type="number" min="1" step="any" value=${seconds} onInput=${(e) => setSeconds(e.currentTarget.value)} /></label>
      <button type="button" onClick=${advance} disabled=${busy}>Advance the clock</button>
    </fieldset>
    <fieldset>
      <legend>Holdings</legend>
      <label>Instrument
        <select value=${instrument || instruments[0]?.instrument.id} onChange=${(e) => setInstrument(e.currentTarget.value)}>
          ${instruments.map((i) => html`<option value=${i.instrument.id}>${i.instrument.id}</option>`)}
        </select>
      </label>
      <label>Owner
        <select value=${owner || owners[0]?.party} onChange=${(e) => setOwner(e.currentTarget.value)}>
          ${owners.map((p) => html`<option value=${p.party}>${p.name ?? shortId(p.party)}</option>`)}
        </select>
      </label>
      <label>Amount <input type="text" inputmode="decimal" value=${amount} onInput=${(e) => setAmount(e.currentTarget.value)} /></label>
      <button type="button" onClick=${mint} disabled=${busy || instruments.length === 0}>Mint</button>
      <button type="button" onClick=${fund} disabled=${busy || instruments.length === 0}>Fund to at least</button>
    </fieldset>
    </div>
  </section>`;
}

function ContractPage({ id, names }) {
  const [c, setC] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setC(null);
    setError(null);
    get(`/admin/v1/contracts/${encodeURIComponent(id)}`).then(setC).catch((e) => setError(e.message));
  }, [id]);
  return html`<section aria-labelledby="contract-heading" class="panel">
    <h2 id="contract-heading">Contract</h2>
    <p class="mono wrap">${id}</p>
    ${error
      ? html`<p role="alert" class="error">${error}</p>`
      : !c
        ? html`<p class="muted">Loading…</p>`
        : html`<dl class="facts">
              <dt>Template</dt><dd title=${c.templateId}>${c.packageName}:${templateName(c.templateId)}</dd>
              <dt>Status</dt><dd>${c.archivedBy ? html`<span class="badge archived">archived</span>` : html`<span class="badge created">active</span>`}</dd>
              <dt>Signatories</dt><dd><${Parties} ids=${c.signatories} names=${names} /></dd>
              <dt>Observers</dt><dd><${Parties} ids=${c.observers} names=${names} /></dd>
              <dt>Created</dt><dd>${time(c.createdAt)} by <${TxLink} id=${c.createdBy.updateId} label=${`transaction #${c.createdBy.offset}`} /></dd>
              <dt>Archived</dt><dd>${c.archivedBy
                ? html`by <${TxLink} id=${c.archivedBy.updateId} label=${`transaction #${c.archivedBy.offset}`} />${c.archivedBy.choice ? html` (${c.archivedBy.choice} by <${Parties} ids=${c.archivedBy.actingParties} names=${names} />)` : ''}`
                : html`<span class="muted">not archived</span>`}</dd>
              ${c.key ? html`<dt>Key</dt><dd><${Value} value=${c.key.value} names=${names} /></dd>` : ''}
              <dt>Participant</dt><dd title=${c.participantId}>${c.participantId.split('::')[0]}</dd>
            </dl>
            <h3>Payload</h3>
            <${Value} value=${c.payload} names=${names} />`}
  </section>`;
}

function TransactionPage({ id, names }) {
  const [tx, setTx] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setTx(null);
    setError(null);
    get(`/admin/v1/transactions/${encodeURIComponent(id)}`).then(setTx).catch((e) => setError(e.message));
  }, [id]);
  return html`<section aria-labelledby="tx-heading" class="panel">
    <h2 id="tx-heading">Transaction</h2>
    <p class="mono wrap">${id}</p>
    ${error
      ? html`<p role="alert" class="error">${error}</p>`
      : !tx
        ? html`<p class="muted">Loading…</p>`
        : html`<dl class="facts">
              <dt>Offset</dt><dd>${tx.offset} <span class="muted">on ${tx.participantId.split('::')[0]}</span></dd>
              <dt>Command id</dt><dd>${tx.commandId || html`<span class="muted">—</span>`}</dd>
              <dt>User</dt><dd>${tx.userId}</dd>
              <dt>Acting parties</dt><dd><${Parties} ids=${tx.actAs} names=${names} /></dd>
              <dt>Record time</dt><dd>${time(tx.recordTime)}</dd>
            </dl>
            <h3>Events</h3>
            <${EventTree} events=${tx.events} names=${names} />`}
  </section>`;
}

const EMPTY_WORLD = { parties: [], users: [], instruments: [], balances: [] };

function App() {
  const route = useHashRoute();
  const [world, setWorld] = useState(EMPTY_WORLD);
  const [clock, setClock] = useState(null);
  const [requests, setRequests] = useState([]);
  const [participants, setParticipants] = useState([]);
  const [participant, setParticipant] = useState('');
  const [feed, setFeed] = useState({ transaction: null, world: 0 });
  const [stream, setStream] = useState('connecting');
  const [message, setMessage] = useState(null);
  const [token, setToken] = useState(() => sessionStorage.getItem(TOKEN_KEY) ?? '');
  const [tokenInput, setTokenInput] = useState(token);
  const refreshTimer = useRef(null);
  const connected = useRef(false);

  const loadWorld = useCallback(() => {
    Promise.all([get('/admin/v1/parties'), get('/admin/v1/users'), get('/admin/v1/instruments'), get('/admin/v1/balances'), get('/admin/v1/clock')])
      .then(([p, u, i, b, c]) => {
        setWorld({ parties: p.parties, users: u.users, instruments: i.instruments, balances: b.balances });
        setClock(c);
      })
      .catch((e) => setMessage({ text: e.message, error: true }));
  }, []);
  // Balances and supply follow the transactions, at most a few times a second.
  const refreshSoon = useCallback(() => {
    if (refreshTimer.current) return;
    refreshTimer.current = setTimeout(() => {
      refreshTimer.current = null;
      loadWorld();
    }, 250);
  }, [loadWorld]);

  useEffect(() => {
    loadWorld();
    get('/admin/v1/requests')
      .then((r) => setRequests(r.requests))
      .catch(() => {});
    return followEvents(
      (type, data) => {
        if (type === 'hello') {
          const ids = Object.keys(data.ledgerEnds);
          setParticipants(ids);
          // Connected again (after a restart of the stack, a lost connection): what was missed is reloaded.
          if (connected.current) {
            setFeed((f) => ({ transaction: null, world: f.world + 1 }));
            loadWorld();
          }
          connected.current = true;
        } else if (type === 'transaction') {
          setFeed((f) => ({ ...f, transaction: data }));
          refreshSoon();
        } else if (type === 'request') {
          setRequests((list) => [data, ...list].slice(0, MAX_REQUESTS));
        } else if (type === 'world') {
          setFeed((f) => ({ transaction: null, world: f.world + 1 }));
          loadWorld();
        }
      },
      setStream,
    );
  }, [token]);

  const names = useMemo(() => new Map(world.parties.filter((p) => p.name).map((p) => [p.party, p.name])), [world.parties]);
  const say = (text, error) => setMessage({ text, error });

  return html`<header>
      <h1><a href="#/">token-registry explorer</a></h1>
      <p class="stream" aria-live="polite">Live feed: <strong>${stream}</strong></p>
      ${participants.length > 1
        ? html`<label>Participant
            <select value=${participant || participants[0]} onChange=${(e) => setParticipant(e.currentTarget.value)}>
              ${participants.map((p) => html`<option value=${p}>${p.split('::')[0]}</option>`)}
            </select>
          </label>`
        : ''}
      <form class="token" onSubmit=${(e) => {
        e.preventDefault();
        sessionStorage.setItem(TOKEN_KEY, tokenInput.trim());
        setToken(tokenInput.trim());
        loadWorld();
      }}>
        <label>Admin token <input type="password" autocomplete="off" placeholder="only with ledger auth" value=${tokenInput} onInput=${(e) => setTokenInput(e.currentTarget.value)} /></label>
        <button type="submit">Use</button>
      </form>
    </header>
    <div role="status" aria-live="polite" class=${message?.error ? 'message error' : 'message'}>${message?.text ?? ''}</div>
    <main>
      ${route.page === 'contract'
        ? html`<p><a href="#/">← Back to the world</a></p><${ContractPage} id=${route.id} names=${names} />`
        : route.page === 'transaction'
          ? html`<p><a href="#/">← Back to the world</a></p><${TransactionPage} id=${route.id} names=${names} />`
          : html`<${Actions} world=${world} clock=${clock} onDone=${loadWorld} say=${say} />
              <div class="columns">
                <${World} world=${world} names=${names} />
                <${Transactions} participant=${participant} names=${names} parties=${world.parties} feed=${feed} />
              </div>
              <${Requests} requests=${requests} />`}
    </main>`;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
