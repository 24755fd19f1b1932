import type { Express, NextFunction, Request, Response } from 'express';
import type { Deps } from '../deps.js';
import type { RouteDef } from '../http/route.js';
import { assetFolder, buildScript, IMMUTABLE, SHORT_CACHE } from '../http/static-assets.js';
import { buildOpenApiDocument, type OpenApiDocument, type WebhookDoc } from './document.js';

/** The page over the built docs folder (hashed names from its manifest); `lang`, title and landmarks for axe. */
function docsPage(asset: (name: string) => string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Hearth API reference</title>
  <link rel="stylesheet" href="${asset('swagger-ui.css')}">
  <link rel="stylesheet" href="${asset('docs.css')}">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${asset('swagger-ui-bundle.js')}"></script>
  <script src="${asset('docs.js')}"></script>
</body>
</html>
`;
}

/**
 * `GET /openapi.json` (the document, built from the route declarations on first request) and `/docs`
 * (Swagger UI over it: swagger-ui-dist plus src/openapi/viewer/, built by scripts/build-widget.mjs into
 * content-hashed, precompressed files under `/docs/assets/`; nothing from a CDN). The document is open
 * to any origin so client generators and hosted viewers can fetch it; it holds no secrets.
 */
export function apiReference(routes: () => RouteDef[], webhooks: () => WebhookDoc[] = () => []) {
  return (app: Express, deps: Deps): void => {
    let document: OpenApiDocument | undefined;
    const documentOf = (): OpenApiDocument => {
      if (document) return document;
      const built = buildOpenApiDocument(routes(), { serverUrl: deps.config.PUBLIC_URL, webhooks: webhooks() });
      if (built.problems.length) deps.logger.warn({ problems: built.problems }, 'the OpenAPI document papers over route declaration problems');
      document = built.document;
      return document;
    };
    app.get('/openapi.json', (_req, res) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Cache-Control', 'no-cache');
      res.json(documentOf());
    });
    const assets = assetFolder('docs', { build: deps.config.NODE_ENV !== 'production' ? buildScript('buildDocs') : undefined });
    app.get('/docs', async (_req: Request, res: Response) => {
      const files: Record<string, string | null> = {};
      for (const name of ['swagger-ui.css', 'docs.css', 'swagger-ui-bundle.js', 'docs.js']) files[name] = await assets.current(name);
      if (Object.values(files).includes(null)) {
        res.status(404).json({ code: 'docs_not_built', message: 'The API reference assets are missing; run `npm run build:widget`.' });
        return;
      }
      res.setHeader('Cache-Control', SHORT_CACHE);
      res.type('html').send(docsPage((name) => `/docs/assets/${files[name]}`));
    });
    app.get('/docs/assets/:file', async (req: Request, res: Response, next: NextFunction) => {
      if (!(await assets.send(req, res, String(req.params.file), IMMUTABLE))) next();
    });
  };
}
