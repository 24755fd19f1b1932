import { existsSync } from 'node:fs';
import { findWorkspaceBySlug } from '../workspaces/workspaces.service.js';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Express, Request, Response } from 'express';
import type { Deps } from '../deps.js';
import { revealKey } from '../credentials/credentials.service.js';
import { consolePage, demoPage } from './widget-host.pages.js';

/** Path of the embeddable script; `GET /external/live-chat/bootstrap` returns it as `scriptPath`. */
export const WIDGET_SCRIPT_PATH = '/widget/widget.js';
/** The agent console's bundle (Preact and socket.io-client included), loaded by the `/console` shell. */
export const CONSOLE_SCRIPT_PATH = '/console/console.js';

// src/widget-host and dist/widget-host both sit two levels below the repository root.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUNDLES = {
  widget: { file: join(ROOT, 'public', 'widget.js'), builder: 'buildWidget' },
  console: { file: join(ROOT, 'public', 'console.js'), builder: 'buildConsole' },
} as const;
type BundleName = keyof typeof BUNDLES;

const building = new Map<BundleName, Promise<void>>();

/** Outside production a missing bundle is built on first request, so `npm run dev` needs no extra step. */
async function ensureBundle(deps: Deps, name: BundleName): Promise<boolean> {
  const { file, builder } = BUNDLES[name];
  if (existsSync(file)) return true;
  if (deps.config.NODE_ENV === 'production') return false;
  let pending = building.get(name);
  if (!pending) {
    pending = (async () => {
      const script = pathToFileURL(join(ROOT, 'scripts', 'build-widget.mjs')).href;
      const build = (await import(script))[builder] as () => Promise<{ gzipped: number }>;
      const { gzipped } = await build();
      deps.logger.info({ bundle: name, gzipped }, 'bundle built on demand');
    })().finally(() => building.delete(name));
    building.set(name, pending);
  }
  await pending;
  return existsSync(file);
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
 * - `GET /console` and `GET /console/console.js`: the agent console (console/, a Preact app on the admin API
 *   and the `/agent` socket): an HTML shell and its bundle.
 */
export function widgetHost(app: Express, deps: Deps, options: { demoSlug: string }): void {
  app.get(WIDGET_SCRIPT_PATH, async (_req: Request, res: Response) => {
    if (!(await ensureBundle(deps, 'widget'))) {
      res.status(404).json({ code: 'widget_not_built', message: 'The widget bundle is missing; run `npm run build:widget`.' });
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.sendFile(BUNDLES.widget.file, {
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

  app.get(CONSOLE_SCRIPT_PATH, async (_req: Request, res: Response) => {
    if (!(await ensureBundle(deps, 'console'))) {
      res.status(404).json({ code: 'console_not_built', message: 'The console bundle is missing; run `npm run build:widget`.' });
      return;
    }
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.sendFile(BUNDLES.console.file, {
      headers: { 'Content-Type': 'application/javascript; charset=utf-8' },
      maxAge: deps.config.NODE_ENV === 'production' ? 300_000 : 0,
    });
  });
  app.get('/console', (_req: Request, res: Response) => {
    sendHtml(res, consolePage({ scriptPath: CONSOLE_SCRIPT_PATH }));
  });
}
