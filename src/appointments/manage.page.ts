import { escapeHtml } from '../shared/html.js';
import { supportedLanguage } from '../shared/locale.js';

// The visitor's manage page: static HTML whose script calls the JSON manage endpoints. Nothing of the
// appointment is rendered by the server; the script writes values with textContent only.

const TEXT: Record<string, Record<string, string>> = {
  en: {
    title: 'Your appointment', loading: 'Loading…', notFound: 'This link is unknown or has expired.', status: 'Status', when: 'When', with: 'With',
    cancel: 'Cancel appointment', reason: 'Reason (optional)', reschedule: 'Move to', move: 'Move', cancelled: 'The appointment is cancelled.', moved: 'The appointment was moved.', failed: 'That did not work:',
  },
  de: {
    title: 'Ihr Termin', loading: 'Wird geladen…', notFound: 'Dieser Link ist unbekannt oder abgelaufen.', status: 'Status', when: 'Wann', with: 'Bei',
    cancel: 'Termin absagen', reason: 'Grund (optional)', reschedule: 'Verschieben auf', move: 'Verschieben', cancelled: 'Der Termin ist abgesagt.', moved: 'Der Termin wurde verschoben.', failed: 'Das hat nicht geklappt:',
  },
  fr: {
    title: 'Votre rendez-vous', loading: 'Chargement…', notFound: 'Ce lien est inconnu ou a expiré.', status: 'Statut', when: 'Quand', with: 'Avec',
    cancel: 'Annuler le rendez-vous', reason: 'Motif (facultatif)', reschedule: 'Déplacer au', move: 'Déplacer', cancelled: 'Le rendez-vous est annulé.', moved: 'Le rendez-vous a été déplacé.', failed: 'Cela n\u2019a pas fonctionné :',
  },
  es: {
    title: 'Tu cita', loading: 'Cargando…', notFound: 'Este enlace es desconocido o ha caducado.', status: 'Estado', when: 'Cuándo', with: 'Con',
    cancel: 'Cancelar la cita', reason: 'Motivo (opcional)', reschedule: 'Cambiar a', move: 'Cambiar', cancelled: 'La cita está cancelada.', moved: 'La cita se ha cambiado.', failed: 'No ha funcionado:',
  },
};

/** The page language: `?lang=`, else the first Accept-Language tag we have, else English. */
export function pageLanguage(lang: string | undefined, acceptLanguage: string | undefined): string {
  const accepted = (acceptLanguage ?? '').split(',').map((part) => part.split(';')[0].trim()).filter(Boolean);
  for (const tag of [lang, ...accepted]) {
    const language = supportedLanguage(TEXT, tag);
    if (language) return language;
  }
  return 'en';
}

export function managePage(language: string): string {
  const t = TEXT[language] ?? TEXT.en;
  const e = (key: string) => escapeHtml(t[key]);
  // The strings reach the script as JSON inside a data attribute (escaped), never as script text.
  const strings = escapeHtml(JSON.stringify(t));
  return `<!doctype html>
<html lang="${escapeHtml(language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">
<title>${e('title')}</title>
<style>body{font-family:sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5}dt{font-weight:bold}button{margin:.5rem 0}</style>
</head><body data-strings="${strings}" data-lang="${escapeHtml(language)}">
<h1>${e('title')}</h1>
<p id="message">${e('loading')}</p>
<dl id="details" hidden><dt>${e('with')}</dt><dd id="workspace"></dd><dt>${e('when')}</dt><dd id="when"></dd><dt>${e('status')}</dt><dd id="status"></dd></dl>
<form id="cancel" hidden><label>${e('reason')} <input id="reason" maxlength="2000"></label><br><button type="submit">${e('cancel')}</button></form>
<form id="reschedule" hidden><label>${e('reschedule')} <input id="newtime" type="datetime-local" required></label><br><button type="submit">${e('move')}</button></form>
<script>
(function () {
  var t = JSON.parse(document.body.getAttribute('data-strings'));
  var lang = document.body.getAttribute('data-lang');
  var token = decodeURIComponent(location.pathname.split('/').pop() || '');
  var api = '/external/appointments/manage/' + encodeURIComponent(token);
  function $(id) { return document.getElementById(id); }
  function say(text) { $('message').textContent = text; }
  function call(path, body) {
    return fetch(api + path, body ? { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {})
      .then(function (res) { return res.json().then(function (data) { if (!res.ok) throw data; return data; }); });
  }
  function show(a) {
    $('details').hidden = false;
    $('workspace').textContent = a.workspace.name;
    $('status').textContent = a.status;
    $('when').textContent = a.scheduledAt ? new Date(a.scheduledAt).toLocaleString(lang, { timeZone: a.timezone, dateStyle: 'full', timeStyle: 'short' }) + ' (' + a.timezone + ')' : '';
    $('cancel').hidden = !a.canCancel;
    $('reschedule').hidden = !a.canReschedule;
  }
  function failed(err) { say(t.failed + ' ' + ((err && err.message) || '')); }
  call('').then(function (a) { say(''); show(a); }, function () { say(t.notFound); });
  $('cancel').addEventListener('submit', function (ev) {
    ev.preventDefault();
    call('/cancel', { reason: $('reason').value || null }).then(function () { say(t.cancelled); return call('').then(show); }, failed);
  });
  $('reschedule').addEventListener('submit', function (ev) {
    ev.preventDefault();
    call('/reschedule', { requestedAt: new Date($('newtime').value).toISOString() }).then(function (a) { say(t.moved); show(a); }, failed);
  });
})();
</script>
</body></html>`;
}
