import type { WorkspaceSeeder } from '../workspaces/workspaces.service.js';
import { listCategories } from '../categories/categories.service.js';
import { createPost } from './posts.service.js';
import { publishPost } from './publication.service.js';

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

/** Demo posts: three articles published in English and German as translations, in the demo categories. */
export const seedDemoPosts: WorkspaceSeeder = async (deps, workspace) => {
  const categories = new Map((await listCategories(deps, workspace)).map((category) => [category.slug, category]));
  for (const article of ARTICLES) {
    const common = { categoryId: categories.get(article.category)?.id ?? null, tags: article.tags, authorName: 'Hearth Demo Bakery' };
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
  }
};
