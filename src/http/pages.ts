import type { Express } from 'express';
import type { Deps } from '../shared/deps.js';
import { mountApiReference } from '../openapi/reference.js';
import { widgetHost } from '../widget-host/widget-host.js';

/** Non-JSON handlers: the widget bundle, the demo and console pages, the API reference. */
export const pageExtras: ((app: Express, deps: Deps) => void)[] = [
  mountApiReference,
  widgetHost,
];
