import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { createWorkspace, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { contentAdmin, expectIssue } from './content-helpers.js';

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

let ws: WorkspaceFixture;
let admin: ReturnType<typeof contentAdmin>;
beforeEach(async () => {
  ws = await createWorkspace(node.url);
  admin = contentAdmin(node.url, ws);
});

/** `segment` goes into the URL as given: callers percent-encode (or not) on purpose. */
const publicPost = (segment: string, qs = '') => request(node.url, `/external/posts/${segment}${qs}`, { apiKey: ws.apiKey });
const adminCall = (method: string, path: string, body?: unknown) =>
  request(node.url, `/admin/workspaces/${ws.id}${path}`, { method, token: ws.token, ...(body === undefined ? {} : { body }) });

// Devanagari "हिन्दी-लेख": vowel signs and the virama stay combining marks after NFC.
const DEVANAGARI = '\u0939\u093f\u0928\u094d\u0926\u0940-\u0932\u0947\u0916';
const WIDE = '\u{20000}'; // a CJK letter outside the BMP: one code point, two UTF-16 units

/** Spellings a slug field refuses (after NFC + lowercase), each with 400 and an issue on the field. */
const REFUSED = [
  'a/b',
  'a b',
  'a\tb',
  'a\nb',
  'a\u0000b',
  'a\u0007b',
  'a\u001bb',
  'a\u007fb',
  'a\u0085b',
  'a\u00a0b',
  'a\u200bb',
  'a\u202eb',
  'a!b',
  'a?b',
  'a%b',
  'a$b',
  '',
  '.',
  '..',
  '\u0301a',
  'a-\u0301',
];

test('slugs of every script are created, published and read back, with their `.`, `~` and `_`', async () => {
  expect(/\p{M}/u.test(DEVANAGARI)).toBe(true);
  const slugs = ['third.post', 'café-crème', '日本語-ポスト', DEVANAGARI, 'a~b_c', '-.~_'];
  for (const slug of slugs) {
    const post = await admin.published({ slug, title: `T ${slug}` });
    expect(post).toMatchObject({ slug, canonicalSlug: slug, state: 'PUBLISHED' });
  }
  for (const slug of slugs) {
    const res = await publicPost(encodeURIComponent(slug));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ slug, canonicalSlug: slug, title: `T ${slug}`, translations: [expect.objectContaining({ slug })] });
  }
  // Unencoded `.`, `~`, `_` and raw non-ASCII (fetch encodes it as UTF-8) reach the same posts.
  expect((await publicPost('third.post')).body.slug).toBe('third.post');
  expect((await publicPost('a~b_c')).body.slug).toBe('a~b_c');
  expect((await publicPost('日本語-ポスト')).body.slug).toBe('日本語-ポスト');

  // The published-slug claims key on the slug itself: `.` and non-ASCII in `_id` values on the real engine.
  const claim = await node.deps.db.collection('post_slugs').findOne({ _id: `${ws.id}:en:third.post` as never });
  expect(claim).not.toBeNull();
  const listed = await request(node.url, '/external/posts?q=%E3%83%9D%E3%82%B9%E3%83%88', { apiKey: ws.apiKey });
  expect(listed.body.items.map((item: { slug: string }) => item.slug)).toEqual(['日本語-ポスト']);
});

test('uppercase and decomposed input is stored NFC-normalized and lowercased, so equivalent spellings clash', async () => {
  const post = await admin.createPost({ slug: 'Cafe\u0301-CRÈME', canonicalSlug: 'CANON.E\u0301', title: 'Café' });
  expect(post.slug).toBe('café-crème');
  expect(post.slug).toBe(post.slug.normalize('NFC'));
  expect(post.canonicalSlug).toBe('canon.é');

  const clash = await adminCall('POST', '/posts', { locale: 'en', slug: 'CAFÉ-CRÈME', title: 'Again' });
  expect(clash.status).toBe(409);
  expect(clash.body.code).toBe('slug_taken');

  const patched = await admin.patch(post.id, { slug: 'ΣΟΦΊΑ.Ü' });
  expect(patched.slug).toBe('σοφία.ü'.normalize('NFC'));
  await admin.publish(post.id);
  expect((await publicPost(encodeURIComponent('σοφία.ü'))).status).toBe(200);
});

test('GET /external/posts/:slug normalizes the percent-decoded segment: encoded, upper-case and decomposed forms find the post', async () => {
  await admin.published({ slug: 'café', title: 'Café' });
  for (const segment of ['caf%C3%A9', 'CAF%C3%89', 'Caf%C3%A9', 'cafe%CC%81', 'CAFE%CC%81', 'café']) {
    const res = await publicPost(segment);
    expect([segment, res.status]).toEqual([segment, 200]);
    expect(res.body.slug).toBe('café');
  }
  expect((await publicPost('CAF%C3%89', '?locale=en')).status).toBe(200);
  expect((await publicPost('cafe')).status).toBe(404);
});

test('a path segment that cannot be a slug answers 404 post_not_found, never 400 or 500', async () => {
  await admin.published({ slug: 'a'.repeat(200), title: 'Long' });
  expect((await publicPost('a'.repeat(200))).status).toBe(200);
  const segments = ['%00', 'a%00b', '%01', '%1F', '%7F', '%C2%85', 'a%20b', '%09', 'a%2Fb', 'a%21b', '%E2%80%AE', 'a'.repeat(201), 'a'.repeat(5000)];
  for (const segment of segments) {
    const res = await publicPost(segment);
    expect([segment, res.status, res.body.code]).toEqual([segment, 404, 'post_not_found']);
  }
  expect((await publicPost('%00', '?locale=en')).status).toBe(404);
});

test('slug length counts code points after normalization: 200 pass, 201 fail (posts and canonical slugs)', async () => {
  const ids: string[] = [];
  for (const slug of ['b'.repeat(200), 'e\u0301'.repeat(200), WIDE.repeat(200)]) {
    const res = await adminCall('POST', '/posts', { locale: 'en', slug, title: 'Long' });
    expect([slug.length, res.status]).toEqual([slug.length, 201]);
    expect([...res.body.slug]).toHaveLength(200);
    ids.push(res.body.id);
  }
  for (const slug of ['c'.repeat(201), 'e\u0301'.repeat(201), WIDE.repeat(201)]) {
    expectIssue(await adminCall('POST', '/posts', { locale: 'en', slug, title: 'Long' }), 'slug');
  }
  expectIssue(await adminCall('POST', '/posts', { locale: 'en', slug: 'ok', canonicalSlug: 'd'.repeat(201), title: 'Long' }), 'canonicalSlug');
  expect((await adminCall('POST', '/posts', { locale: 'en', slug: 'ok', canonicalSlug: 'd'.repeat(200), title: 'Long' })).status).toBe(201);

  // The longest slugs work as published-slug claims and as path segments too.
  await admin.publish(ids[1]);
  await admin.publish(ids[2]);
  expect((await publicPost(encodeURIComponent('\u00e9'.repeat(200)))).body.postId).toBe(ids[1]);
  expect((await publicPost('e%CC%81'.repeat(200))).body.postId).toBe(ids[1]);
  expect((await publicPost(encodeURIComponent(WIDE.repeat(200)))).body.postId).toBe(ids[2]);
});

test('`/`, whitespace, control and format characters and other punctuation are refused with 400 on the post field', async () => {
  const draft = await admin.createPost({ slug: 'fine', title: 'Fine' });
  for (const bad of REFUSED) {
    expectIssue(await adminCall('POST', '/posts', { locale: 'en', slug: bad, title: 'X' }), 'slug');
    expectIssue(await adminCall('POST', '/posts', { locale: 'en', slug: 'x', canonicalSlug: bad, title: 'X' }), 'canonicalSlug');
    expectIssue(await adminCall('PATCH', `/posts/${draft.id}`, { slug: bad }), 'slug');
  }
  const res = await adminCall('POST', '/posts', { locale: 'en', slug: 'a/b', title: 'X' });
  expect(res.body.issues.find((issue: { path: string }) => issue.path === 'slug').message).toMatch('/');
  expect((await adminCall('GET', '/posts')).body.items).toHaveLength(1);
});

test('category slugs follow the same rule: normalized, every script, 200 pass, 201 and refused characters fail', async () => {
  const created = await admin.category('Pâte\u0301.FR~Ü', 'Pâtisserie');
  expect(created.slug).toBe('pâté.fr~ü');
  expect((await adminCall('POST', '/categories', { slug: 'PÂTÉ.fr~ü', name: 'Again' })).status).toBe(409);
  expect((await admin.category(DEVANAGARI)).slug).toBe(DEVANAGARI);
  expect((await admin.category(WIDE.repeat(200))).slug).toBe(WIDE.repeat(200));
  expectIssue(await adminCall('POST', '/categories', { slug: 'f'.repeat(201), name: 'Long' }), 'slug');
  const renamed = await adminCall('PATCH', `/categories/${created.id}`, { slug: '日本語_カテゴリ' });
  expect(renamed.body.slug).toBe('日本語_カテゴリ');
  for (const bad of REFUSED) {
    expectIssue(await adminCall('POST', '/categories', { slug: bad, name: 'X' }), 'slug');
    expectIssue(await adminCall('PATCH', `/categories/${created.id}`, { slug: bad }), 'slug');
  }
  const listed = await request(node.url, '/external/categories?locale=*', { apiKey: ws.apiKey });
  expect(listed.body.items.map((c: { slug: string }) => c.slug).sort()).toEqual([DEVANAGARI, WIDE.repeat(200), '日本語_カテゴリ'].sort());
});

test('post type slugs follow the same rule, and `type` in bodies and queries is normalized the same way', async () => {
  const created = await adminCall('POST', '/post-types', { slug: 'Recettes-E\u0301te\u0301', name: 'Recettes' });
  expect(created.status).toBe(201);
  expect(created.body.slug).toBe('recettes-été');
  expect((await adminCall('POST', '/post-types', { slug: 'g'.repeat(200), name: 'Long' })).status).toBe(201);
  expectIssue(await adminCall('POST', '/post-types', { slug: 'g'.repeat(201), name: 'Long' }), 'slug');
  expect((await adminCall('POST', '/post-types', { slug: 'RECETTES-ÉTÉ', name: 'Again' })).status).toBe(409);
  for (const bad of REFUSED) expectIssue(await adminCall('POST', '/post-types', { slug: bad, name: 'X' }), 'slug');

  const post = await admin.published({ type: 'RECETTES-ÉTÉ', slug: 'tarte.tatin', title: 'Tarte' });
  expect(post.type).toBe('recettes-été');
  for (const type of ['recettes-%C3%A9t%C3%A9', 'RECETTES-%C3%89T%C3%89', 'recettes-e%CC%81te%CC%81']) {
    const listed = await request(node.url, `/external/posts?type=${type}`, { apiKey: ws.apiKey });
    expect([type, listed.body.items.map((item: { slug: string }) => item.slug)]).toEqual([type, ['tarte.tatin']]);
  }
  expect((await publicPost('TARTE.TATIN')).body.type).toBe('recettes-été');
  expectIssue(await request(node.url, '/external/posts?type=a%00b', { apiKey: ws.apiKey }), 'type');
});

test('other path parameters of content routes never take a control character to the engine: 404', async () => {
  const nav = await admin.navigation('main');
  const key = (segment: string) => request(node.url, `/external/navigations/${segment}`, { apiKey: ws.apiKey });
  expect((await key('main')).status).toBe(200);
  for (const segment of ['%00', 'ma%00in', '%7F', 'MA%20IN', 'a%2Fb', 'k'.repeat(65), 'k'.repeat(5000)]) {
    const res = await key(segment);
    expect([segment, res.status, res.body.code]).toEqual([segment, 404, 'navigation_not_found']);
  }
  const admins: [string, string, unknown][] = [
    ['GET', '/posts/%00', undefined],
    ['PATCH', '/posts/%00', { title: 'x' }],
    ['POST', '/posts/%00/publish', {}],
    ['POST', '/posts/%00/unpublish', {}],
    ['DELETE', '/posts/%00', undefined],
    ['PATCH', '/categories/%00', { name: 'x' }],
    ['DELETE', '/categories/%00', undefined],
    ['GET', '/navigations/%00', undefined],
    ['PATCH', '/navigations/%00', { name: 'x' }],
    ['PUT', '/navigations/%00/items', { items: [] }],
    ['DELETE', '/navigations/%00', undefined],
  ];
  for (const [method, path, body] of admins) {
    const res = await adminCall(method, path, body);
    expect([method, path, res.status]).toEqual([method, path, 404]);
  }
  const res = await request(node.url, '/admin/workspaces/%00/posts', { token: ws.token });
  expect(res.status).toBe(404);
  expect((await adminCall('GET', `/navigations/${nav.id}`)).status).toBe(200);
});
