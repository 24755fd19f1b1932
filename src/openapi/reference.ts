import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Express } from 'express';
import type { Deps } from '../deps.js';
import type { RouteDef } from '../http/route.js';
import { buildOpenApiDocument, type OpenApiDocument, type WebhookDoc } from './document.js';

/** swagger-ui-dist ships the viewer prebuilt; it is served from node_modules, never from a CDN. */
const viewerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Hearth API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/**
 * `GET /openapi.json` (the document, built from the route declarations on first request) and `/docs`
 * (Swagger UI over it). The document is open to any origin so client generators and hosted viewers
 * can fetch it; it holds no secrets.
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
    app.get('/docs', (_req, res) => {
      res.type('html').send(DOCS_PAGE);
    });
    app.get('/docs/init.js', (_req, res) => {
      res.type('application/javascript').send(INIT_SCRIPT);
    });
    app.use('/docs/assets', express.static(viewerDir, { index: false, maxAge: '1h' }));
  };
}
