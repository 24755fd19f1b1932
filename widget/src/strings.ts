import { WIDGET_STRING_KEYS, type WidgetStringKey } from '../../src/livechat/widget-strings.js';
import { supportedLanguage } from '../../src/shared/locale.js';

/**
 * Every sentence the widget shows, per language. The workspace's own greeting and offline texts come
 * from the config (already localized by the server); these are the widget's fixed words around them,
 * which a workspace may reword (`include=strings` on the config). `lang` is the language of the table
 * (a `lang` attribute); `newCount` fills in `{n}`, `typing` fills in `{name}`, the agent's display name.
 */
export type Strings = { lang: string } & Record<WidgetStringKey, string>;

const en: Strings = {
  lang: 'en',
  title: 'Chat with us',
  open: 'Open chat',
  close: 'Close chat',
  messageLabel: 'Your message',
  placeholder: 'Type a message…',
  send: 'Send',
  you: 'You',
  agent: 'Team',
  messages: 'Messages',
  restart: 'Start a new conversation',
  newCount: '{n} new',
  online: 'We are online',
  offline: 'We will reply as soon as we can',
  flood: 'You are sending messages very quickly. Please wait a moment, then try again.',
  closed: 'This conversation was closed by our team. You can start a new one.',
  invalid: 'This message could not be sent. Messages can be up to 2000 characters.',
  network: 'We could not reach the chat service. Please check your connection and try again.',
  failed: 'Something went wrong while sending. Please try again.',
  unavailable: 'Chat is not available right now.',
  emailLabel: 'Your e-mail (optional)',
  emailHint: 'We are away right now. Leave your e-mail and we will answer there.',
  emailInvalid: 'Please enter a valid e-mail address, or leave the field empty.',
  offlineSent: 'Thanks! We will get back to you as soon as we can.',
  typing: '{name} is typing…',
  seen: 'Seen',
  attach: 'Attach an image or PDF',
  removeFile: 'Remove the file',
  uploading: 'Sending the file',
  fileTooLarge: 'This file is too large to send.',
  fileRejected: 'Only images and PDF files can be sent.',
};

const de: Strings = {
  lang: 'de',
  title: 'Chatten Sie mit uns',
  open: 'Chat öffnen',
  close: 'Chat schließen',
  messageLabel: 'Ihre Nachricht',
  placeholder: 'Nachricht eingeben…',
  send: 'Senden',
  you: 'Sie',
  agent: 'Team',
  messages: 'Nachrichten',
  restart: 'Neues Gespräch beginnen',
  newCount: '{n} neu',
  online: 'Wir sind online',
  offline: 'Wir antworten so bald wie möglich',
  flood: 'Sie senden sehr schnell. Bitte warten Sie einen Moment und versuchen Sie es dann erneut.',
  closed: 'Unser Team hat dieses Gespräch beendet. Sie können ein neues beginnen.',
  invalid: 'Diese Nachricht konnte nicht gesendet werden. Nachrichten dürfen bis zu 2000 Zeichen lang sein.',
  network: 'Der Chat ist nicht erreichbar. Bitte prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  failed: 'Beim Senden ist etwas schiefgegangen. Bitte versuchen Sie es erneut.',
  unavailable: 'Der Chat ist gerade nicht verfügbar.',
  emailLabel: 'Ihre E-Mail-Adresse (optional)',
  emailHint: 'Wir sind gerade nicht da. Hinterlassen Sie Ihre E-Mail-Adresse, dann antworten wir dorthin.',
  emailInvalid: 'Bitte geben Sie eine gültige E-Mail-Adresse ein oder lassen Sie das Feld leer.',
  offlineSent: 'Danke! Wir melden uns so bald wie möglich.',
  typing: '{name} schreibt…',
  seen: 'Gelesen',
  attach: 'Bild oder PDF anhängen',
  removeFile: 'Datei entfernen',
  uploading: 'Datei wird gesendet',
  fileTooLarge: 'Diese Datei ist zu groß zum Senden.',
  fileRejected: 'Nur Bilder und PDF-Dateien können gesendet werden.',
};

const fr: Strings = {
  lang: 'fr',
  title: 'Discutez avec nous',
  open: 'Ouvrir le chat',
  close: 'Fermer le chat',
  messageLabel: 'Votre message',
  placeholder: 'Écrivez un message…',
  send: 'Envoyer',
  you: 'Vous',
  agent: 'Équipe',
  messages: 'Messages',
  restart: 'Commencer une nouvelle conversation',
  newCount: '{n} nouveau(x)',
  online: 'Nous sommes en ligne',
  offline: 'Nous vous répondrons dès que possible',
  flood: 'Vous envoyez des messages très vite. Patientez un instant, puis réessayez.',
  closed: 'Notre équipe a clos cette conversation. Vous pouvez en commencer une nouvelle.',
  invalid: "Ce message n'a pas pu être envoyé. Un message compte au plus 2000 caractères.",
  network: 'Le service de chat est injoignable. Vérifiez votre connexion et réessayez.',
  failed: "Une erreur s'est produite lors de l'envoi. Veuillez réessayer.",
  unavailable: "Le chat n'est pas disponible pour le moment.",
  emailLabel: 'Votre e-mail (facultatif)',
  emailHint: 'Nous sommes absents pour le moment. Laissez votre e-mail et nous vous répondrons par ce biais.',
  emailInvalid: 'Saisissez une adresse e-mail valide, ou laissez le champ vide.',
  offlineSent: 'Merci ! Nous revenons vers vous dès que possible.',
  typing: '{name} écrit…',
  seen: 'Lu',
  attach: 'Joindre une image ou un PDF',
  removeFile: 'Retirer le fichier',
  uploading: 'Envoi du fichier',
  fileTooLarge: 'Ce fichier est trop volumineux.',
  fileRejected: 'Seuls les images et les fichiers PDF peuvent être envoyés.',
};

const es: Strings = {
  lang: 'es',
  title: 'Chatea con nosotros',
  open: 'Abrir el chat',
  close: 'Cerrar el chat',
  messageLabel: 'Tu mensaje',
  placeholder: 'Escribe un mensaje…',
  send: 'Enviar',
  you: 'Tú',
  agent: 'Equipo',
  messages: 'Mensajes',
  restart: 'Empezar una nueva conversación',
  newCount: '{n} nuevo(s)',
  online: 'Estamos en línea',
  offline: 'Te responderemos lo antes posible',
  flood: 'Estás enviando mensajes muy rápido. Espera un momento y vuelve a intentarlo.',
  closed: 'Nuestro equipo cerró esta conversación. Puedes empezar una nueva.',
  invalid: 'No se pudo enviar este mensaje. Los mensajes pueden tener hasta 2000 caracteres.',
  network: 'No pudimos conectar con el chat. Revisa tu conexión y vuelve a intentarlo.',
  failed: 'Algo salió mal al enviar. Inténtalo de nuevo.',
  unavailable: 'El chat no está disponible en este momento.',
  emailLabel: 'Tu correo electrónico (opcional)',
  emailHint: 'Ahora no estamos. Déjanos tu correo y te responderemos allí.',
  emailInvalid: 'Introduce un correo electrónico válido o deja el campo vacío.',
  offlineSent: '¡Gracias! Te responderemos lo antes posible.',
  typing: '{name} está escribiendo…',
  seen: 'Leído',
  attach: 'Adjuntar una imagen o un PDF',
  removeFile: 'Quitar el archivo',
  uploading: 'Enviando el archivo',
  fileTooLarge: 'Este archivo es demasiado grande.',
  fileRejected: 'Solo se pueden enviar imágenes y archivos PDF.',
};

const TABLES: Record<string, Strings> = { en, de, fr, es };

/**
 * The strings of a BCP 47 tag by its primary language (`de-AT` -> German; English otherwise), with the
 * workspace's overrides for that tag (already resolved by the server) over them.
 */
export function stringsFor(locale: string | null | undefined, overrides?: Record<string, unknown> | null): Strings {
  const strings = { ...TABLES[languageFor(locale)] };
  for (const key of WIDGET_STRING_KEYS) {
    const text = overrides?.[key];
    if (typeof text === 'string' && text.trim()) strings[key] = text;
  }
  return strings;
}

/** The language the widget actually speaks for a tag: what `lang` attributes should say. */
export function languageFor(locale: string | null | undefined): string {
  return supportedLanguage(TABLES, (locale ?? '').trim()) ?? 'en';
}
