import { existsSync } from 'node:fs';
import { findWorkspaceBySlug } from '../workspaces/workspaces.service.js';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Express, Request, Response } from 'express';
import type { Deps } from '../deps.js';
import { revealKey } from '../credentials/credentials.service.js';
import { consolePage, demoPage } from './widget-host.pages.js';

/** Path of the embeddable script; `GET /external/live-chat/bootstrap` returns it as `scriptPath`. */
export const WIDGET_SCRIPT_PATH = '/widget/widget.js';
const CONSOLE_SOCKET_CLIENT_PATH = '/console/socket.io.min.js';

// src/widget-host and dist/widget-host both sit two levels below the repository root.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUNDLE = join(ROOT, 'public', 'widget.js');

let building: Promise<void> | null = null;

/** Outside production a missing bundle is built on first request, so `npm run dev` needs no extra step. */
async function ensureBundle(deps: Deps): Promise<boolean> {
  if (existsSync(BUNDLE)) return true;
  if (deps.config.NODE_ENV === 'production') return false;
  building ??= (async () => {
    const script = pathToFileURL(join(ROOT, 'scripts', 'build-widget.mjs')).href;
    const { buildWidget } = (await import(script)) as { buildWidget(): Promise<{ gzipped: number }> };
    const { gzipped } = await buildWidget();
    deps.logger.info({ gzipped }, 'widget bundle built on demand');
  })().finally(() => {
    building = null;
  });
  await building;
  return existsSync(BUNDLE);
}

function sendHtml(res: Response, html: string): void {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.send(html);
}

/**
 * Non-JSON handlers of the chat widget:
 * - `GET /widget/widget.js`: the bundle, loadable from any site (CORS `*`, cached 5 minutes).
 * - `GET /demo` (not in production): a page embedding the widget for the seeded `demo` workspace.
 * - `GET /console`: a minimal agent console (log in, pick a conversation, reply, close) on the admin API.
 */
export function widgetHost(app: Express, deps: Deps, options: { demoSlug: string }): void {
  app.get(WIDGET_SCRIPT_PATH, async (_req: Request, res: Response) => {
    if (!(await ensureBundle(deps))) {
      res.status(404).json({ code: 'widget_not_built', message: 'The widget bundle is missing; run `npm run build:widget`.' });
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.sendFile(BUNDLE, {
      headers: { 'Content-Type': 'application/javascript; charset=utf-8' },
      maxAge: deps.config.NODE_ENV === 'production' ? 300_000 : 0,
    });
  });

  if (deps.config.NODE_ENV !== 'production') {
    app.get('/demo', async (_req: Request, res: Response) => {
      const workspace = await findWorkspaceBySlug(deps, options.demoSlug);
      const publishableKey = workspace ? await revealKey(deps, workspace.id, 'publishable') : null;
      sendHtml(res, demoPage({ workspaceName: workspace?.name ?? null, publishableKey, scriptPath: WIDGET_SCRIPT_PATH }));
    });
  }

  // The package's exports hide dist/*.min.js; its package.json is exported and sits next to dist/.
  const socketClient = join(dirname(createRequire(import.meta.url).resolve('socket.io-client/package.json')), 'dist', 'socket.io.min.js');
  app.get(CONSOLE_SOCKET_CLIENT_PATH, (_req: Request, res: Response) => {
    res.sendFile(socketClient, { headers: { 'Content-Type': 'application/javascript; charset=utf-8' }, maxAge: 3_600_000 });
  });
  app.get('/console', (_req: Request, res: Response) => {
    sendHtml(res, consolePage({ socketClientPath: CONSOLE_SOCKET_CLIENT_PATH }));
  });
}
