import { useState } from 'preact/hooks';
import { attempt } from './api.js';
import { navigate } from './router.js';
import { t } from './strings.js';
import * as navs from './navigations.js';
import { AskFirst, Field, FormProblem, text, useSubmit } from './widgets.js';

/** A navigation's name and key (renamed over its version), and deleting it after a confirmation. */
export function NavigationSettings({ editor }: { editor: navs.OpenNavigation }) {
  const navigation = editor.base.value!;
  const [done, setDone] = useState('');
  const form = useSubmit(
    (data) => navs.renameNavigation(editor.base.value!, { key: text(data, 'key'), name: text(data, 'name') }),
    (stored) => {
      editor.renamed(stored);
      setDone(t.navSettingsSaved);
    },
  );
  return (
    <details class="navigation-settings">
      <summary id="nav-settings-toggle">{t.navSettings}</summary>
      <form id="nav-settings" class="stack" onSubmit={form.onSubmit} aria-label={t.navSettings}>
        <Field id="nav-settings-name" name="name" label={t.navigationName} issues={form.issues} value={navigation.name} />
        <Field id="nav-settings-key" name="key" label={t.navigationKey} issues={form.issues} value={navigation.key} />
        {form.message && <FormProblem id="nav-settings-problem" message={form.message} />}
        <button type="submit" disabled={form.busy}>
          {t.navSaveSettings}
        </button>
        <p id="nav-settings-status" role="status" class="muted">
          {done}
        </p>
      </form>
      <DeleteNavigation navigation={navigation} />
    </details>
  );
}

function DeleteNavigation({ navigation }: { navigation: navs.Navigation }) {
  const remove = async () => {
    const outcome = await attempt(() => navs.deleteNavigation(navigation.id));
    if (!outcome.ok) return outcome.message;
    localStorage.removeItem(navs.keptKeyOf(navigation.id));
    navigate('structure');
    return null;
  };
  return <AskFirst id="nav-delete" label={t.navDelete} question={t.navConfirmDelete(navigation.name)} yes={t.navYesDelete} keep={t.navKeep} onYes={remove} />;
}
