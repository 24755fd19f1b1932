import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import type { Response } from 'express';
import type { RouteDef } from './route.js';

/** Where the mount leaves JSON it sends as bytes (cached answers), for the recorder to read at `finish`. */
export const SENT_JSON_BYTES = 'hearthSentJsonBytes';

/** One answer as the contract test replays it against the declared response schema. */
export interface RecordedAnswer {
  method: string;
  /** The declared Express path of the route (`/external/posts/:slug`), not the URL. */
  path: string;
  status: number;
  /** The JSON body as sent; absent when the answer had none. */
  body?: unknown;
  /** The requested URL, redacted, to tell the reader which call it was. */
  url: string;
}

/** Set on a response whose answer the writer recorded itself (a kept answer), so `watch` does not again. */
const RECORDED = Symbol('hearth.recorded');
type Marked = ServerResponse & { [RECORDED]?: true };

/**
 * Records the answers of declared routes as JSON lines, one file per process, when `RECORD_RESPONSES_DIR`
 * is set (the test run sets it; production never does). The response writer (`answer-writer.ts`) calls it
 * for every answer: a kept answer as the bytes it writes (`kept`), anything else Express sends (`watch`).
 * Error answers are recorded too: they are sent by the error handler, so the body is taken at `res.json`.
 */
export interface ResponseRecorder {
  /** Records what Express sends for `def` on `res`, once it is finished (unless `kept` recorded it). */
  watch(def: RouteDef, redactedUrl: string, res: Response): void;
  /** Records a kept answer written as bytes on `res`; `json` when those bytes are the JSON body. */
  kept(def: RouteDef, redactedUrl: string, res: ServerResponse, status: number, json?: Buffer): void;
}

/** The run's recorder, or undefined when answers are not recorded. */
export function responseRecorder(dir: string | undefined): ResponseRecorder | undefined {
  if (!dir) return undefined;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `answers-${process.pid}.jsonl`);
  const append = (answer: RecordedAnswer) => {
    const line = JSON.stringify(answer) + '\n';
    try {
      appendFileSync(file, line);
    } catch {
      // A test run that started meanwhile may have emptied the directory; recording never fails a request.
      try {
        mkdirSync(dir, { recursive: true });
        appendFileSync(file, line);
      } catch {
        /* best effort: the contract run reports missing answers, not this request */
      }
    }
  };
  const sent = (def: RouteDef, url: string, status: number, json?: Buffer) => {
    const answer: RecordedAnswer = { method: def.method, path: def.path, status, url };
    if (json) answer.body = JSON.parse(json.toString('utf8'));
    append(answer);
  };
  return {
    kept(def, url, res, status, json) {
      (res as Marked)[RECORDED] = true;
      sent(def, url, status, json);
    },
    watch(def, url, res) {
      let body: unknown;
      let sentJson = false;
      const json = res.json.bind(res);
      res.json = (value: unknown) => {
        sentJson = true;
        body = value;
        return json(value);
      };
      res.once('finish', () => {
        if ((res as Marked)[RECORDED]) return;
        if (!sentJson) return sent(def, url, res.statusCode, Buffer.isBuffer(res.locals[SENT_JSON_BYTES]) ? (res.locals[SENT_JSON_BYTES]) : undefined);
        append({ method: def.method, path: def.path, status: res.statusCode, url, body: body === undefined ? null : JSON.parse(JSON.stringify(body)) });
      });
    },
  };
}
