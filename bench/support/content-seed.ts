import { request } from '../../test/support/harness.js';
import { pool } from './hearth.js';

/** `posts` published posts made through the admin API as a user would: half in `en` (`post-<i>`), their translations in `de`. */
export async function seedPosts(url: string | string[], ws: { id: string; token: string }, posts: number): Promise<void> {
  // Several nodes (bench:builds) take the writes in turn, so that each has served the same team's requests.
  const urls = [url].flat();
  let sent = 0;
  const body = (i: number) => `## Part ${i}\n\n${'Lorem ipsum dolor sit amet, **consectetur** adipiscing elit. '.repeat(20)}\n\n- one\n- two`;
  const call = async (path: string, payload?: unknown) => {
    const res = await request(urls[sent++ % urls.length], `/admin/workspaces/${ws.id}${path}`, { token: ws.token, body: payload ?? {} });
    if (res.status >= 300) throw new Error(`seeding ${path}: ${res.status} ${res.text}`);
    return res.body as { id: string };
  };
  await pool(Math.ceil(posts / 2), 4, async (i) => {
    const en = await call('/posts', { locale: 'en', slug: `post-${i}`, title: `Bread notes ${i}`, metaDescription: 'A benchmark post.', tags: ['bench'], authorName: 'Bench', contentMarkdown: body(i) });
    await call(`/posts/${en.id}/publish`);
    if (2 * i + 1 >= posts) return;
    const de = await call('/posts', { locale: 'de', translationOf: en.id, slug: `beitrag-${i}`, title: `Brotnotizen ${i}`, metaDescription: 'Ein Beitrag.', tags: ['bench'], authorName: 'Bench', contentMarkdown: body(i) });
    await call(`/posts/${de.id}/publish`);
  });
}
