import type { DemoSeeder } from '../app/seed.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import type { Deps } from '../deps.js';
import { createCategory, createNavigation, createPost, publishPost, replaceNavigationItems } from './content.service.js';

interface DemoArticle {
  category: 'bread' | 'pastry';
  tags: string[];
  en: { slug: string; title: string; description: string; body: string };
  de: { slug: string; title: string; description: string; body: string };
}

const ARTICLES: DemoArticle[] = [
  {
    category: 'bread',
    tags: ['sourdough', 'basics'],
    en: { slug: 'sourdough-starter', title: 'Your first sourdough starter', description: 'Flour, water and a week of patience.', body: '## Day one\n\nMix **50 g rye flour** with 50 g water.\n\n- Keep it warm\n- Feed it daily' },
    de: { slug: 'sauerteig-ansetzen', title: 'Den ersten Sauerteig ansetzen', description: 'Mehl, Wasser und eine Woche Geduld.', body: '## Tag eins\n\n**50 g Roggenmehl** mit 50 g Wasser mischen.\n\n- Warm halten\n- Täglich füttern' },
  },
  {
    category: 'bread',
    tags: ['rye'],
    en: { slug: 'rye-loaf', title: 'A dense rye loaf', description: 'The everyday bread of the north.', body: 'Rye wants time, not kneading.' },
    de: { slug: 'roggenbrot', title: 'Ein kräftiges Roggenbrot', description: 'Das Alltagsbrot des Nordens.', body: 'Roggen braucht Zeit, kein Kneten.' },
  },
  {
    category: 'pastry',
    tags: ['butter', 'lamination'],
    en: { slug: 'croissants-at-home', title: 'Croissants at home', description: 'Lamination without tears.', body: 'Keep the butter **cold**.' },
    de: { slug: 'croissants-zuhause', title: 'Croissants zu Hause', description: 'Tourieren ohne Tränen.', body: 'Die Butter **kalt** halten.' },
  },
];

async function seedContent(deps: Deps, workspace: Workspace): Promise<void> {
  const categories = {
    bread: await createCategory(deps, workspace, { slug: 'bread', name: 'Bread' }),
    pastry: await createCategory(deps, workspace, { slug: 'pastry', name: 'Pastry' }),
  };
  const firstPosts: string[] = [];
  for (const article of ARTICLES) {
    const common = { categoryId: categories[article.category].id, tags: article.tags, authorName: 'Hearth Demo Bakery' };
    const en = await createPost(deps, workspace, {
      locale: 'en',
      slug: article.en.slug,
      title: article.en.title,
      metaDescription: article.en.description,
      contentMarkdown: article.en.body,
      ...common,
    });
    await publishPost(deps, workspace, en.id);
    const de = await createPost(deps, workspace, {
      locale: 'de',
      slug: article.de.slug,
      title: article.de.title,
      metaDescription: article.de.description,
      contentMarkdown: article.de.body,
      translationOf: en.id,
      ...common,
    });
    await publishPost(deps, workspace, de.id);
    firstPosts.push(en.id);
  }
  const header = await createNavigation(deps, workspace, { key: 'header', name: 'Header' });
  await replaceNavigationItems(deps, workspace, header.id, [
    { id: 'home', parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/', labels: { en: 'Home', de: 'Start' } },
    { id: 'recipes', parentId: null, position: 1, type: 'HEADING', labels: { en: 'Recipes', de: 'Rezepte' } },
    { id: 'starter', parentId: 'recipes', position: 0, type: 'POST', postId: firstPosts[0] },
    { id: 'rye', parentId: 'recipes', position: 1, type: 'POST', postId: firstPosts[1] },
    { id: 'croissants', parentId: 'recipes', position: 2, type: 'POST', postId: firstPosts[2] },
    { id: 'blog', parentId: null, position: 2, type: 'CUSTOM_URL', customUrl: '/blog', labels: { en: 'Blog', de: 'Blog' } },
  ]);
}

/** Demo content: two locales (en/de), three articles published in both as translations, two categories, a header menu. */
export const seedDemoContent: DemoSeeder = seedContent;
