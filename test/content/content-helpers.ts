import { expect } from '@jest/globals';
import { request, type WorkspaceFixture } from '../support/harness.js';

/** Admin writes for content tests: each answers the body and fails the test on an unexpected status. */
export function contentAdmin(url: string, ws: WorkspaceFixture) {
  const base = `/admin/workspaces/${ws.id}`;
  const call = async (path: string, options: { method?: string; body?: unknown } = {}, expected = [200, 201, 204]) => {
    const res = await request(url, base + path, { token: ws.token, ...options });
    if (!expected.includes(res.status)) throw new Error(`${options.method ?? 'GET'} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  return {
    call,
    createPost: (body: Record<string, unknown>) => call('/posts', { body: { locale: 'en', ...body } }),
    publish: (pid: string) => call(`/posts/${pid}/publish`, { method: 'POST', body: {} }),
    unpublish: (pid: string) => call(`/posts/${pid}/unpublish`, { method: 'POST', body: {} }),
    patch: (pid: string, body: Record<string, unknown>) => call(`/posts/${pid}`, { method: 'PATCH', body }),
    remove: (pid: string) => call(`/posts/${pid}`, { method: 'DELETE' }),
    /** Creates and publishes; returns the admin post. */
    async published(body: Record<string, unknown>) {
      const post = await this.createPost(body);
      return this.publish(post.id);
    },
    category: (slug: string, name = slug) => call('/categories', { body: { slug, name } }),
    navigation: (key: string, name = key) => call('/navigations', { body: { key, name } }),
    items: (nid: string, items: unknown[]) => call(`/navigations/${nid}/items`, { method: 'PUT', body: { items } }),
  };
}

export function expectIssue(res: { status: number; body: { code?: string; issues?: { path: string }[] } }, path: string): void {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('validation_failed');
  expect(res.body.issues?.map((issue) => issue.path)).toContain(path);
}
