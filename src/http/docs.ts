/**
 * A self-contained API reference page for an OpenAPI 3 document served beside it (`/docs` renders
 * `./openapi.json`): no script or style from a CDN, so it works on a machine without internet
 * access and leaks no visitor to a third party. It lists every operation with its parameters,
 * request body and answers; schemas are shown as JSON with their `$ref`s linked to the component.
 */

export function apiDocsPage(title: string, documentUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font:14px/1.5 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1rem 2rem;color:#222}
h1{font-size:1.5rem}h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #ddd}
details{border:1px solid #ddd;border-radius:4px;margin:.5rem 0;padding:.25rem .75rem}
summary{cursor:pointer}code,pre{font:12px/1.4 ui-monospace,monospace}
pre{background:#f6f8fa;padding:.5rem;overflow:auto}
.m{display:inline-block;min-width:4.5em;font-weight:bold}.get{color:#0a7}.post{color:#07c}
.muted{color:#666}
</style>
</head>
<body>
<h1 id="title">${escapeHtml(title)}</h1>
<p class="muted">Rendered from <a href="${escapeHtml(documentUrl)}">${escapeHtml(documentUrl)}</a>.</p>
<div id="doc">loading…</div>
<script>
(async () => {
  const root = document.getElementById('doc');
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
  const json = (v) => esc(JSON.stringify(v, null, 2)).replace(/&quot;#\\/components\\/schemas\\/([^&]+)&quot;/g, (m, n) => '<a href="#schema-' + n + '">' + m + '</a>');
  let doc;
  try {
    const r = await fetch(${JSON.stringify(documentUrl)});
    doc = await r.json();
  } catch (e) {
    root.textContent = 'could not load the OpenAPI document: ' + e;
    return;
  }
  document.getElementById('title').textContent = doc.info?.title ?? document.title;
  let html = doc.info?.description ? '<p>' + esc(doc.info.description) + '</p>' : '';
  const byTag = new Map();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get','post','put','patch','delete'].includes(method)) continue;
      const tag = op.tags?.[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push({ path, method, op });
    }
  }
  for (const [tag, ops] of byTag) {
    html += '<h2>' + esc(tag) + '</h2>';
    for (const { path, method, op } of ops) {
      html += '<details><summary><span class="m ' + method + '">' + method.toUpperCase() + '</span><code>' + esc(path) + '</code> ' + esc(op.summary ?? op.operationId ?? '') + '</summary>';
      if (op.description) html += '<p>' + esc(op.description) + '</p>';
      if (op.parameters?.length) html += '<h4>Parameters</h4><pre>' + json(op.parameters) + '</pre>';
      if (op.requestBody) html += '<h4>Request body</h4><pre>' + json(op.requestBody) + '</pre>';
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        html += '<h4>' + esc(status) + ' ' + esc(res.description ?? '') + '</h4>';
        if (res.content) html += '<pre>' + json(res.content) + '</pre>';
      }
      html += '</details>';
    }
  }
  const schemas = Object.entries(doc.components?.schemas ?? {});
  if (schemas.length) {
    html += '<h2>Schemas</h2>';
    for (const [name, s] of schemas) html += '<details id="schema-' + esc(name) + '"><summary><code>' + esc(name) + '</code></summary><pre>' + json(s) + '</pre></details>';
  }
  root.innerHTML = html;
  if (location.hash) document.querySelector(location.hash)?.setAttribute('open', '');
})();
</script>
</body>
</html>
`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
