import type { WorkspaceSeeder } from '../workspaces/workspaces.service.js';
import { getPublicPost } from '../posts/public-posts.service.js';
import { createNavigation, replaceNavigationItems } from './navigations.service.js';

/** The demo header menu: home, the demo articles under a heading (`seedDemoPosts`), the blog. */
export const seedDemoNavigations: WorkspaceSeeder = async (deps, workspace) => {
  // The English demo articles of `seedDemoPosts`.
  const [starter, rye, croissants] = await Promise.all(
    ['sourdough-starter', 'rye-loaf', 'croissants-at-home'].map(async (slug) => (await getPublicPost(deps, workspace, slug, { locale: 'en' })).postId),
  );
  const header = await createNavigation(deps, workspace, { key: 'header', name: 'Header' });
  await replaceNavigationItems(deps, workspace, header.id, [
    { id: 'home', parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/', labels: { en: 'Home', de: 'Start' } },
    { id: 'recipes', parentId: null, position: 1, type: 'HEADING', labels: { en: 'Recipes', de: 'Rezepte' } },
    { id: 'starter', parentId: 'recipes', position: 0, type: 'POST', postId: starter },
    { id: 'rye', parentId: 'recipes', position: 1, type: 'POST', postId: rye },
    { id: 'croissants', parentId: 'recipes', position: 2, type: 'POST', postId: croissants },
    { id: 'blog', parentId: null, position: 2, type: 'CUSTOM_URL', customUrl: '/blog', labels: { en: 'Blog', de: 'Blog' } },
  ]);
};
