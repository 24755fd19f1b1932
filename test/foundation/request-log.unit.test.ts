import { expect, test } from '@jest/globals';
import { urlRedactor } from '../../src/http/request-log.js';
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
