import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from './strings.js';
import { writesContent } from './posts.js';
import { myRole } from './team.js';

/** The media library is its own chunk, loaded the first time the section is opened (editors and owners only). */
type MediaModule = { MediaView: ComponentType };
let mediaModule: Promise<MediaModule> | null = null;
const loadMedia = () => (mediaModule ??= import('./media-view.js'));

export function MediaSlot() {
  const [loaded, setLoaded] = useState<MediaModule | null>(null);
  useEffect(() => {
    if (myRole.value !== null && writesContent.value) void loadMedia().then(setLoaded);
  }, [myRole.value, writesContent.value]);
  // The role is known once the workspace list is in: until then, no verdict.
  if (myRole.value === null) return <p class="box muted" aria-busy="true">{t.loadingMedia}</p>;
  if (!writesContent.value) return <p class="box">{t.mediaOnlyEditors}</p>;
  if (!loaded) return <p class="box muted" aria-busy="true">{t.loadingMedia}</p>;
  const { MediaView } = loaded;
  return <MediaView />;
}
