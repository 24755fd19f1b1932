import { escapeHtml } from '../shared/html.js';

/** The HTML of the demo page and of the console's shell. Dynamic values go through `escapeHtml`. */

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
         <pre style="white-space:pre-wrap;overflow-wrap:anywhere"><code>&lt;script src="${escapeHtml(scriptPath)}" data-publishable-key="${escapeHtml(publishableKey)}" async&gt;&lt;/script&gt;</code></pre>
         <p>Open the launcher at the bottom right and say hello. Answer from the <a href="/console" target="_blank" rel="noopener">agent console</a>
         in another tab.</p>
         <script src="${escapeHtml(scriptPath)}" data-publishable-key="${escapeHtml(publishableKey)}" async></script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hearth chat demo</title><style>${BASE_STYLE}</style></head>
<body><main><h1>${escapeHtml(workspaceName ?? 'Hearth')} · chat demo</h1>${body}</main></body></html>`;
}

/** The agent console's shell: the app (console/) renders into `#console`; without JavaScript it says so. */
export function consolePage(options: { scriptPath: string; bootScript: string | null }): string {
  // The boot script starts the view's first list while the app's script loads (console/src/prefetch.ts).
  const boot = options.bootScript ? `<script>${options.bootScript.replaceAll('</', '<\\/')}</script>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent console</title><style>body{font-family:system-ui,sans-serif;margin:0;background:#f7f5f0;color:#1d2330}</style>
${boot}<script type="module" src="${escapeHtml(options.scriptPath)}"></script></head>
<body><div id="console"><noscript><main><h1>Agent console</h1><p>The agent console needs JavaScript.</p></main></noscript></div></body></html>`;
}
