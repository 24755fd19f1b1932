import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

/** The request and response constructors a `node:http` server takes (its `IncomingMessage` and `ServerResponse` options). */
export interface MessageConstructors {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * Node's request and response, built with the Express app's own prototypes (`app.request`, `app.response`) from
 * the start, for the server whose requests the app answers.
 *
 * Why: Express gives every request and response it handles those prototypes (`Object.setPrototypeOf`), and on
 * Node 20's V8 an object whose prototype was changed gets a map (hidden class) no other object shares for each
 * property added afterwards (Express's `res.locals`, the router's `req.params`, ours). So every request Express
 * handled made new maps, missed every inline cache of Node's HTTP and stream code that met it, and left those
 * caches megamorphic for all later requests. Born with the app's prototypes, Express's `setPrototypeOf`
 * changes nothing and requests share a handful of maps: `GET /healthz` cost 189-219 µs of CPU per request
 * before, 76-81 µs after (bench:builds).
 */
export function appMessages(app: Express): MessageConstructors {
  // Subclasses, so that V8 sizes their objects as Node's (a plain constructor function calling Node's left its
  // objects too small for their properties: they went to dictionary mode), with the app's prototypes behind
  // their own, which become the app's.
  class AppRequest extends IncomingMessage {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  app.request = AppRequest.prototype as Express['request'];
  class AppResponse extends ServerResponse {}
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  app.response = AppResponse.prototype as Express['response'];
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse as typeof ServerResponse };
}
