/** The HTML of the demo and console pages. Dynamic values go through `escapeHtml`; page scripts use textContent. */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

const BASE_STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#f7f5f0}
main{max-width:760px;margin:0 auto;padding:32px 20px}h1{margin-top:0}code{background:#ece8df;padding:1px 4px;border-radius:3px}`;

export function demoPage(options: { workspaceName: string | null; publishableKey: string | null; scriptPath: string }): string {
  const { workspaceName, publishableKey, scriptPath } = options;
  const body = !workspaceName
    ? `<p>The demo workspace (slug <code>demo</code>) does not exist yet. Start the server with <code>SEED_DEMO=true</code> and an
       <code>ADMIN_EMAIL</code> so it is seeded.</p>`
    : !publishableKey
      ? `<p>Live chat is not activated for <strong>${escapeHtml(workspaceName)}</strong>, so there is no publishable key yet.
         Activate it with <code>PUT /admin/workspaces/:wid/plugins/live-chat</code>, then reload.</p>`
      : `<p>This page embeds the chat widget of <strong>${escapeHtml(workspaceName)}</strong> with one tag:</p>
         <pre style="max-width:100%;overflow-x:auto"><code>&lt;script src="${escapeHtml(scriptPath)}" data-publishable-key="${escapeHtml(publishableKey)}" async&gt;&lt;/script&gt;</code></pre>
         <p>Open the launcher at the bottom right and say hello. Answer from the <a href="/console" target="_blank" rel="noopener">agent console</a>
         in another tab.</p>
         <script src="${escapeHtml(scriptPath)}" data-publishable-key="${escapeHtml(publishableKey)}" async></script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hearth chat demo</title><style>${BASE_STYLE}</style></head>
<body><main><h1>${escapeHtml(workspaceName ?? 'Hearth')} · chat demo</h1>${body}</main></body></html>`;
}

/**
 * The agent console: plain browser JavaScript on the admin API. Live updates come over the `/agent`
 * namespace (which also makes the workspace `online`); while that socket is down the page polls.
 */
export function consolePage(options: { socketClientPath: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hearth agent console</title>
<style>${BASE_STYLE}
main{max-width:1000px}.cols{display:grid;grid-template-columns:300px 1fr;gap:16px}
.box{background:#fff;border-radius:8px;padding:12px;box-shadow:0 1px 3px rgba(0,0,0,.1)}
#conversations{list-style:none;margin:0;padding:0}#conversations button{all:unset;display:block;width:100%;box-sizing:border-box;padding:8px;border-radius:6px;cursor:pointer}
#conversations button[aria-current="true"]{background:#e5ecfb}#conversations button:focus-visible{outline:2px solid #2d5be3}
#messages{list-style:none;margin:0;padding:0;height:360px;overflow-y:auto;display:flex;flex-direction:column;gap:6px}
#messages li{max-width:80%;padding:6px 10px;border-radius:10px;white-space:pre-wrap;overflow-wrap:anywhere}
#messages li.AGENT{align-self:flex-end;background:#2d5be3;color:#fff}#messages li.VISITOR{align-self:flex-start;background:#eceff5}
.muted{color:#6b7280;font-size:13px}[hidden]{display:none!important}form.row{display:flex;gap:8px;margin-top:8px}
textarea,input,select{font:inherit;padding:6px}textarea{flex:1}#error{color:#b42318}
</style></head>
<body><main>
<h1>Agent console</h1>
<p id="error" role="alert"></p>
<form id="login" class="box">
  <p><label>Email <input id="email" type="email" autocomplete="username" required></label></p>
  <p><label>Password <input id="password" type="password" autocomplete="current-password" required></label></p>
  <button type="submit">Log in</button>
</form>
<section id="app" hidden>
  <p><label>Workspace <select id="workspace"></select></label>
     <label><input type="checkbox" id="showClosed"> show closed</label>
     <button type="button" id="logout">Log out</button> <span id="live" class="muted"></span></p>
  <div class="cols">
    <div class="box"><h2>Conversations</h2><ul id="conversations" aria-label="Conversations"></ul></div>
    <div class="box"><h2 id="title">Pick a conversation</h2>
      <ol id="messages" role="log" aria-live="polite" aria-label="Messages"></ol>
      <form id="reply" class="row" hidden><label for="body" class="muted">Reply</label>
        <textarea id="body" rows="2" maxlength="2000" required></textarea><button type="submit">Send</button>
        <button type="button" id="close">Close conversation</button></form>
    </div>
  </div>
</section>
</main>
<script src="${escapeHtml(options.socketClientPath)}"></script>
<script>
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var state = { token: sessionStorage.getItem('hearth.console.token'), wid: null, cid: null, socket: null, timer: null, seen: {} };
  function error(text) { $('error').textContent = text || ''; }
  function api(method, path, body) {
    return fetch(path, { method: method, headers: Object.assign({ 'Content-Type': 'application/json' }, state.token ? { Authorization: 'Bearer ' + state.token } : {}),
      body: body ? JSON.stringify(body) : undefined }).then(function (res) {
      return res.text().then(function (text) {
        var data = text ? JSON.parse(text) : null;
        if (res.status === 401 && path !== '/admin/auth/login') { logout(); }
        if (!res.ok) { throw new Error((data && data.message) || ('HTTP ' + res.status)); }
        return data;
      });
    });
  }
  function list(data, key) { return Array.isArray(data) ? data : (data && (data[key] || data.items)) || []; }
  function logout() {
    if (state.token) { fetch('/admin/auth/logout', { method: 'POST', headers: { Authorization: 'Bearer ' + state.token } }).catch(function () {}); }
    state.token = null; sessionStorage.removeItem('hearth.console.token');
    if (state.socket) { state.socket.disconnect(); state.socket = null; }
    $('app').hidden = true; $('login').hidden = false;
  }
  $('logout').onclick = logout;
  $('login').onsubmit = function (e) {
    e.preventDefault(); error('');
    api('POST', '/admin/auth/login', { email: $('email').value, password: $('password').value }).then(function (res) {
      state.token = res.token; sessionStorage.setItem('hearth.console.token', res.token); start();
    }).catch(function (err) { error(err.message); });
  };
  function start() {
    $('login').hidden = true; $('app').hidden = false;
    api('GET', '/admin/workspaces').then(function (data) {
      var select = $('workspace'); select.replaceChildren();
      list(data, 'workspaces').forEach(function (w) { var o = document.createElement('option'); o.value = w.id; o.textContent = w.name + ' (' + w.slug + ')'; select.append(o); });
      pickWorkspace(select.value);
    }).catch(function (err) { error(err.message); });
  }
  $('workspace').onchange = function () { pickWorkspace(this.value); };
  $('showClosed').onchange = function () { loadConversations(); };
  function pickWorkspace(wid) {
    state.wid = wid; state.cid = null; $('reply').hidden = true; $('messages').replaceChildren(); $('title').textContent = 'Pick a conversation';
    if (state.socket) { state.socket.disconnect(); }
    if (window.io && wid) {
      var socket = window.io('/agent', { auth: { token: state.token, workspaceId: wid } });
      state.socket = socket;
      socket.on('connect', function () { $('live').textContent = 'live'; });
      socket.on('disconnect', function () { $('live').textContent = 'offline (polling)'; });
      socket.on('connect_error', function () { $('live').textContent = 'offline (polling)'; });
      socket.on('conversation.created', loadConversations);
      socket.on('conversation.updated', function (p) { loadConversations(); if (p && p.conversationId === state.cid) { loadMessages(); } });
      socket.on('message.created', function (p) { if (p && p.conversationId === state.cid) { addMessages([p.message]); } loadConversations(); });
    }
    loadConversations();
    clearInterval(state.timer);
    state.timer = setInterval(function () { if (!state.socket || !state.socket.connected) { loadConversations(); if (state.cid) { loadMessages(); } } }, 5000);
  }
  function loadConversations() {
    if (!state.wid) { return; }
    var status = $('showClosed').checked ? 'CLOSED' : 'OPEN';
    api('GET', '/admin/workspaces/' + state.wid + '/conversations?status=' + status).then(function (data) {
      var ul = $('conversations'); ul.replaceChildren();
      list(data, 'conversations').forEach(function (c) {
        var li = document.createElement('li'); var b = document.createElement('button'); b.type = 'button';
        var who = (c.visitor && (c.visitor.name || c.visitor.externalId)) || c.visitorName || 'Visitor';
        var last = c.lastMessage ? c.lastMessage.body : '';
        b.textContent = who + (c.unreadCount ? ' (' + c.unreadCount + ')' : '') + (last ? ' · ' + last.slice(0, 60) : '');
        if (c.id === state.cid) { b.setAttribute('aria-current', 'true'); }
        b.onclick = function () { pickConversation(c.id, who, c.status); };
        li.append(b); ul.append(li);
      });
    }).catch(function (err) { error(err.message); });
  }
  function pickConversation(cid, who, status) {
    state.cid = cid; state.seen = {}; $('messages').replaceChildren(); $('title').textContent = who;
    $('reply').hidden = status === 'CLOSED'; loadMessages(); loadConversations(); $('body').focus();
  }
  function loadMessages() {
    var cid = state.cid;
    api('GET', '/admin/workspaces/' + state.wid + '/conversations/' + cid + '/messages').then(function (data) {
      if (cid === state.cid) { addMessages(list(data, 'messages')); if (data && data.status === 'CLOSED') { $('reply').hidden = true; } }
    }).catch(function (err) { error(err.message); });
  }
  function addMessages(messages) {
    var ol = $('messages');
    messages.forEach(function (m) {
      if (!m || state.seen[m.id]) { return; }
      state.seen[m.id] = true;
      var li = document.createElement('li'); li.className = m.sender; li.textContent = m.body; li.title = m.createdAt; ol.append(li);
    });
    ol.scrollTop = ol.scrollHeight;
  }
  $('reply').onsubmit = function (e) {
    e.preventDefault(); error('');
    var body = $('body').value; if (!body.trim()) { return; }
    api('POST', '/admin/workspaces/' + state.wid + '/conversations/' + state.cid + '/messages', { body: body }).then(function (m) {
      $('body').value = ''; addMessages([m && m.message ? m.message : m]);
    }).catch(function (err) { error(err.message); });
  };
  $('body').onkeydown = function (e) { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); $('reply').requestSubmit(); } };
  $('close').onclick = function () {
    api('POST', '/admin/workspaces/' + state.wid + '/conversations/' + state.cid + '/close', {}).then(function () {
      $('reply').hidden = true; loadConversations();
    }).catch(function (err) { error(err.message); });
  };
  if (state.token) { start(); }
})();
</script></body></html>`;
}
