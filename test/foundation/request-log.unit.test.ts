import { describe, expect, test } from '@jest/globals';
import { pino, type LoggerOptions } from 'pino';
import { requestLines, urlRedactor } from '../../src/http/request-log.js';
import { allRoutes } from '../../src/app/routes.js';

/**
 * Credentials in URLs (path tokens, key-bearing query values) never reach a log line, whichever spelling of
 * the URL the router still serves: HEAD and OPTIONS, a trailing slash, another case, percent-encoding.
 */

const redact = urlRedactor(allRoutes);
const TOKEN = 'ct_Sup3rSecretConversationToken';

test.each([
  ['GET', `/external/live-chat/conversations/${TOKEN}/messages`],
  ['HEAD', `/external/live-chat/conversations/${TOKEN}/messages`],
  ['OPTIONS', `/external/live-chat/conversations/${TOKEN}/messages`],
  ['POST', `/external/live-chat/conversations/${TOKEN}/messages/`],
  ['GET', `/external/live-chat/conversations/${TOKEN}/messages//`],
  ['GET', `/External/Live-Chat/Conversations/${TOKEN}/MESSAGES`],
  ['GET', `/external/live%2Dchat/conversations/${TOKEN}/messages?after=2026-01-01`],
  ['GET', `/external/live-chat/conversations/${TOKEN}/messages?publishableKey=${TOKEN}`],
  ['GET', `/external/posts?%70ublishableKey=${TOKEN}`],
  ['GET', `/external/posts?PUBLISHABLEKEY=${TOKEN}&locale=en`],
  ['GET', `/external/posts?locale=en&publishableKey[]=${TOKEN}`],
  ['GET', `/external/posts/slug?Preview=${TOKEN}`],
  ['GET', `/external/posts/slug?pre%76iew=${TOKEN}`],
  ['GET', `/anything?a=1&token=${TOKEN}&b=2`],
])('%s %s is logged without the credential', (method, url) => {
  const logged = redact(method, url);
  expect(logged).not.toContain(TOKEN);
  expect(logged).toContain('[redacted]');
});

test('everything else of the URL is logged as sent', () => {
  expect(redact('GET', '/external/posts?locale=en&page=2')).toBe('/external/posts?locale=en&page=2');
  expect(redact('GET', `/external/live-chat/conversations/${TOKEN}/messages?after=x`)).toBe('/external/live-chat/conversations/[redacted]/messages?after=x');
  expect(redact('GET', '/external/posts?publishableKey=pk_1&locale=de')).toBe('/external/posts?publishableKey=[redacted]&locale=de');
  expect(redact('GET', '/')).toBe('/');
});

/**
 * The request line is the one a log collector parses for every request: written by `requestLines`, it is
 * byte for byte the line the logger itself writes for the same fields, whatever the logger's bindings and
 * options (a logger it cannot write for goes through `logger.info`).
 */
describe('the request line', () => {
  const logged = { id: 'a1b2-3f', method: 'GET', url: '/external/posts?q="quoted" \\ é\n&locale=de' };
  /** The line `requestLines` writes and the one `logger.info` writes for the same request, on one fixed clock. */
  const bothLines = (options: LoggerOptions, bindings?: Record<string, unknown>) => {
    const written: string[] = [];
    const root = pino({ ...options, timestamp: () => ',"time":1795879720884' }, { write: (line: string) => written.push(line) });
    const logger = bindings ? root.child(bindings) : root;
    requestLines(logger)('info', logged, 304, 12, 'request completed');
    logger.info({ req: logged, res: { statusCode: 304 }, responseTime: 12 }, 'request completed');
    return written;
  };

  test.each<[string, LoggerOptions, Record<string, unknown> | undefined]>([
    ['the shipped options', {}, undefined],
    ['no base bindings', { base: undefined }, undefined],
    ['a child logger', {}, { node: 'api-1', region: 'eu' }],
    ['a mixin', { mixin: () => ({ tenant: 'hearth' }) }, undefined],
    ['a log formatter', { formatters: { log: (fields) => ({ ...fields, formatted: true }) } }, undefined],
    ['its own message key', { messageKey: 'message' }, undefined],
    ['a req serializer', { serializers: { req: (req: { id: string }) => ({ id: req.id }) } }, undefined],
    ['a nested key', { nestedKey: 'payload' }, undefined],
    ['level labels', { formatters: { level: (label) => ({ level: label }) } }, undefined],
  ])('with %s it is the line the logger writes', (_, options, bindings) => {
    const [ours, logger] = bothLines(options, bindings);
    expect(ours).toBe(logger);
    expect(JSON.stringify(JSON.parse(ours))).toContain('"statusCode":304');
  });

  test('a logger above info (and one turned up later) gets no line at info', () => {
    const written: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => written.push(line) });
    const line = requestLines(logger);
    line('info', logged, 200, 1, 'request completed');
    expect(written).toEqual([]);
    logger.level = 'info';
    line('info', logged, 200, 1, 'request completed');
    logger.level = 'error';
    line('info', logged, 200, 1, 'request completed');
    expect(written).toHaveLength(1);
  });

  test('a line at error goes through the logger, with the error it names', () => {
    const written: string[] = [];
    const logger = pino({}, { write: (line: string) => written.push(line) });
    requestLines(logger)('error', logged, 502, 40, 'request errored');
    expect(JSON.parse(written[0])).toMatchObject({ level: 50, req: logged, res: { statusCode: 502 }, responseTime: 40, msg: 'request errored', err: { message: 'failed with status code 502' } });
  });
});
