import type { Express, NextFunction, Request, Response } from 'express';
import { findWorkspaceBySlug } from '../workspaces/workspaces.service.js';
import { assetFolder, buildScript, IMMUTABLE, SHORT_CACHE } from '../http/static-assets.js';
import type { Deps } from '../deps.js';
import { revealKey } from '../credentials/credentials.service.js';
import { consolePage, demoPage } from './widget-host.pages.js';

/** Path of the embeddable script; `GET /external/live-chat/bootstrap` returns it as `scriptPath`. */
export const WIDGET_SCRIPT_PATH = '/widget/widget.js';
/** The agent console's bundle (Preact and socket.io-client included) under its stable name; `/console` names the hashed one. */
export const CONSOLE_SCRIPT_PATH = '/console/console.js';

function sendHtml(res: Response, html: string, cacheControl = 'no-store'): void {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.send(html);
}

/** The widget may be loaded by any site, and so may its hashed file. */
function embeddable(res: Response): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
}

/**
 * Non-JSON handlers of the chat widget (bundles built by scripts/build-widget.mjs, served precompressed by
 * src/http/static-assets.ts):
 * - `GET /widget/widget.js`: the bundle under its stable name, loadable from any site (CORS `*`, cached 5
 *   minutes, revalidated by ETag); `GET /widget/widget.<hash>.js`: the same bytes, cached for a year.
 * - `GET /demo` (not in production): a page embedding the widget for the seeded `demo` workspace.
 * - `GET /console`: the agent console's shell (console/, a Preact app on the admin API and the `/agent`
 *   socket), naming its hashed bundle `GET /console/console.<hash>.js`.
 * Unknown file names fall through to the JSON 404.
 */
export function widgetHost(app: Express, deps: Deps, options: { demoSlug: string }): void {
  const onDemand = deps.config.NODE_ENV !== 'production';
  const widget = assetFolder('widget', { build: onDemand ? buildScript('buildWidget') : undefined });
  const consoleAssets = assetFolder('console', { build: onDemand ? buildScript('buildConsole') : undefined });

  app.get(WIDGET_SCRIPT_PATH, async (req: Request, res: Response) => {
    const file = await widget.current('widget.js');
    embeddable(res);
    if (!file || !(await widget.send(req, res, file, SHORT_CACHE))) {
      res.status(404).json({ code: 'widget_not_built', message: 'The widget bundle is missing; run `npm run build:widget`.' });
    }
  });
  app.get('/widget/:file', async (req: Request, res: Response, next: NextFunction) => {
    embeddable(res);
    if (!(await widget.send(req, res, String(req.params.file), IMMUTABLE))) next();
  });

  if (deps.config.NODE_ENV !== 'production') {
    app.get('/demo', async (_req: Request, res: Response) => {
      const workspace = await findWorkspaceBySlug(deps, options.demoSlug);
      const publishableKey = workspace ? await revealKey(deps, workspace.id, 'publishable') : null;
      sendHtml(res, demoPage({ workspaceName: workspace?.name ?? null, publishableKey, scriptPath: WIDGET_SCRIPT_PATH }));
    });
  }

  app.get(CONSOLE_SCRIPT_PATH, async (req: Request, res: Response) => {
    const file = await consoleAssets.current('console.js');
    if (!file || !(await consoleAssets.send(req, res, file, SHORT_CACHE))) {
      res.status(404).json({ code: 'console_not_built', message: 'The console bundle is missing; run `npm run build:widget`.' });
    }
  });
  app.get('/console/:file', async (req: Request, res: Response, next: NextFunction) => {
    if (!(await consoleAssets.send(req, res, String(req.params.file), IMMUTABLE))) next();
  });
  app.get('/console', async (_req: Request, res: Response) => {
    const [file, boot] = await Promise.all([consoleAssets.current('console.js'), consoleAssets.current('boot.js')]);
    const bootScript = boot ? await consoleAssets.text(boot) : null;
    sendHtml(res, consolePage({ scriptPath: file ? `/console/${file}` : CONSOLE_SCRIPT_PATH, bootScript }), SHORT_CACHE);
  });
}
