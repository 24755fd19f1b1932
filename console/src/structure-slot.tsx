import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from './strings.js';
import { writesContent } from './posts.js';

/** Menus and categories are their own chunk, loaded the first time the section is opened. */
type StructureModule = { StructureView: ComponentType };
let structureModule: Promise<StructureModule> | null = null;
const loadStructure = () => (structureModule ??= import('./structure-view.js'));

export function StructureSlot() {
  const [loaded, setLoaded] = useState<StructureModule | null>(null);
  useEffect(() => {
    if (writesContent.value) void loadStructure().then(setLoaded);
  }, [writesContent.value]);
  if (!writesContent.value) return <p class="box">{t.structureOnlyEditors}</p>;
  if (!loaded) return <p class="box muted" aria-busy="true">{t.loadingStructure}</p>;
  const { StructureView } = loaded;
  return <StructureView />;
}
