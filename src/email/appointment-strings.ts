import { supportedLanguage } from '../shared/locale.js';

/**
 * The words of the appointment mails, per language. English is the reference (and the fallback); each
 * entry takes the mail's values and returns text, so word order stays the language's own.
 */
export interface AppointmentStrings {
  /** luxon format of a start; `(zone)` is appended. */
  dateFormat: string;
  when: string;
  duration: string;
  minutes: (n: number) => string;
  hello: (name: string) => string;
  helloTeam: string;
  yourMessage: string;
  name: string;
  email: string;
  phone: string;
  message: string;
  reason: string;
  previously: string;
  manageLink: string;
  /** The team's link to the request in the team app. */
  answerLink: string;
  receivedSubject: (ws: string) => string;
  receivedBody: (ws: string) => string;
  notifiedSubject: (visitor: string) => string;
  notifiedBody: (visitor: string, ws: string) => string;
  confirmedSubject: (ws: string) => string;
  confirmedBody: (ws: string) => string;
  declinedSubject: (ws: string) => string;
  declinedBody: (ws: string) => string;
  cancelledSubject: (ws: string) => string;
  cancelledBody: (ws: string) => string;
  rescheduledSubject: (ws: string) => string;
  rescheduledBody: (ws: string) => string;
  reminderSubject: (ws: string) => string;
  reminderBody: (ws: string) => string;
  teamCancelledSubject: (visitor: string) => string;
  teamCancelledBody: (visitor: string) => string;
  teamRescheduledSubject: (visitor: string) => string;
  teamRescheduledBody: (visitor: string) => string;
}

const en: AppointmentStrings = {
  dateFormat: 'cccc, d LLLL yyyy, HH:mm',
  when: 'When',
  duration: 'Duration',
  minutes: (n) => `${n} minutes`,
  hello: (name) => `Hello ${name},`,
  helloTeam: 'Hello,',
  yourMessage: 'Your message',
  name: 'Name',
  email: 'E-mail',
  phone: 'Phone',
  message: 'Message',
  reason: 'Reason',
  previously: 'Previously',
  manageLink: 'Cancel or reschedule',
  answerLink: 'Confirm or decline in the team app',
  receivedSubject: (ws) => `We received your appointment request – ${ws}`,
  receivedBody: (ws) => `Thank you for your appointment request with ${ws}. It is not confirmed yet: you will receive another e-mail once it is confirmed or declined.`,
  notifiedSubject: (v) => `New appointment request from ${v}`,
  notifiedBody: (v, ws) => `${v} asked for an appointment with ${ws}. Confirm or decline it in the CMS.`,
  confirmedSubject: (ws) => `Your appointment with ${ws} is confirmed`,
  confirmedBody: (ws) => `Your appointment with ${ws} is confirmed.`,
  declinedSubject: (ws) => `Your appointment request with ${ws} was declined`,
  declinedBody: (ws) => `Unfortunately ${ws} could not accept your appointment request.`,
  cancelledSubject: (ws) => `Your appointment with ${ws} is cancelled`,
  cancelledBody: (ws) => `Your appointment with ${ws} is cancelled.`,
  rescheduledSubject: (ws) => `Your appointment with ${ws} was moved`,
  rescheduledBody: (ws) => `Your appointment with ${ws} was moved to a new time.`,
  reminderSubject: (ws) => `Reminder: your appointment with ${ws}`,
  reminderBody: (ws) => `This is a reminder of your appointment with ${ws}.`,
  teamCancelledSubject: (v) => `${v} cancelled an appointment`,
  teamCancelledBody: (v) => `${v} cancelled their appointment; the time is free again.`,
  teamRescheduledSubject: (v) => `${v} moved an appointment`,
  teamRescheduledBody: (v) => `${v} moved their appointment to a new time.`,
};

const de: AppointmentStrings = {
  dateFormat: "cccc, d. LLLL yyyy, HH:mm 'Uhr'",
  when: 'Wann',
  duration: 'Dauer',
  minutes: (n) => `${n} Minuten`,
  hello: (name) => `Hallo ${name},`,
  helloTeam: 'Hallo,',
  yourMessage: 'Ihre Nachricht',
  name: 'Name',
  email: 'E-Mail',
  phone: 'Telefon',
  message: 'Nachricht',
  reason: 'Grund',
  previously: 'Bisher',
  manageLink: 'Absagen oder verschieben',
  answerLink: 'In der Team-App bestätigen oder ablehnen',
  receivedSubject: (ws) => `Ihre Terminanfrage ist eingegangen – ${ws}`,
  receivedBody: (ws) => `Vielen Dank für Ihre Terminanfrage bei ${ws}. Sie ist noch nicht bestätigt: Sie erhalten eine weitere E-Mail, sobald sie bestätigt oder abgelehnt wird.`,
  notifiedSubject: (v) => `Neue Terminanfrage von ${v}`,
  notifiedBody: (v, ws) => `${v} hat einen Termin bei ${ws} angefragt. Bestätigen oder lehnen Sie ihn im CMS ab.`,
  confirmedSubject: (ws) => `Ihr Termin bei ${ws} ist bestätigt`,
  confirmedBody: (ws) => `Ihr Termin bei ${ws} ist bestätigt.`,
  declinedSubject: (ws) => `Ihre Terminanfrage bei ${ws} wurde abgelehnt`,
  declinedBody: (ws) => `Leider konnte ${ws} Ihre Terminanfrage nicht annehmen.`,
  cancelledSubject: (ws) => `Ihr Termin bei ${ws} ist abgesagt`,
  cancelledBody: (ws) => `Ihr Termin bei ${ws} ist abgesagt.`,
  rescheduledSubject: (ws) => `Ihr Termin bei ${ws} wurde verschoben`,
  rescheduledBody: (ws) => `Ihr Termin bei ${ws} wurde auf eine neue Zeit verschoben.`,
  reminderSubject: (ws) => `Erinnerung: Ihr Termin bei ${ws}`,
  reminderBody: (ws) => `Wir erinnern Sie an Ihren Termin bei ${ws}.`,
  teamCancelledSubject: (v) => `${v} hat einen Termin abgesagt`,
  teamCancelledBody: (v) => `${v} hat den Termin abgesagt; die Zeit ist wieder frei.`,
  teamRescheduledSubject: (v) => `${v} hat einen Termin verschoben`,
  teamRescheduledBody: (v) => `${v} hat den Termin auf eine neue Zeit verschoben.`,
};

const fr: AppointmentStrings = {
  dateFormat: "cccc d LLLL yyyy, HH'h'mm",
  when: 'Quand',
  duration: 'Durée',
  minutes: (n) => `${n} minutes`,
  hello: (name) => `Bonjour ${name},`,
  helloTeam: 'Bonjour,',
  yourMessage: 'Votre message',
  name: 'Nom',
  email: 'E-mail',
  phone: 'Téléphone',
  message: 'Message',
  reason: 'Motif',
  previously: 'Auparavant',
  manageLink: 'Annuler ou déplacer',
  answerLink: 'Confirmer ou refuser dans l’application de l’équipe',
  receivedSubject: (ws) => `Nous avons reçu votre demande de rendez-vous – ${ws}`,
  receivedBody: (ws) => `Merci pour votre demande de rendez-vous auprès de ${ws}. Elle n'est pas encore confirmée : vous recevrez un autre e-mail dès qu'elle sera confirmée ou refusée.`,
  notifiedSubject: (v) => `Nouvelle demande de rendez-vous de ${v}`,
  notifiedBody: (v, ws) => `${v} a demandé un rendez-vous auprès de ${ws}. Confirmez-le ou refusez-le dans le CMS.`,
  confirmedSubject: (ws) => `Votre rendez-vous avec ${ws} est confirmé`,
  confirmedBody: (ws) => `Votre rendez-vous avec ${ws} est confirmé.`,
  declinedSubject: (ws) => `Votre demande de rendez-vous avec ${ws} a été refusée`,
  declinedBody: (ws) => `Malheureusement, ${ws} n'a pas pu accepter votre demande de rendez-vous.`,
  cancelledSubject: (ws) => `Votre rendez-vous avec ${ws} est annulé`,
  cancelledBody: (ws) => `Votre rendez-vous avec ${ws} est annulé.`,
  rescheduledSubject: (ws) => `Votre rendez-vous avec ${ws} a été déplacé`,
  rescheduledBody: (ws) => `Votre rendez-vous avec ${ws} a été déplacé à un nouvel horaire.`,
  reminderSubject: (ws) => `Rappel : votre rendez-vous avec ${ws}`,
  reminderBody: (ws) => `Ceci est un rappel de votre rendez-vous avec ${ws}.`,
  teamCancelledSubject: (v) => `${v} a annulé un rendez-vous`,
  teamCancelledBody: (v) => `${v} a annulé son rendez-vous ; le créneau est de nouveau libre.`,
  teamRescheduledSubject: (v) => `${v} a déplacé un rendez-vous`,
  teamRescheduledBody: (v) => `${v} a déplacé son rendez-vous à un nouvel horaire.`,
};

const es: AppointmentStrings = {
  dateFormat: "cccc, d 'de' LLLL 'de' yyyy, HH:mm",
  when: 'Cuándo',
  duration: 'Duración',
  minutes: (n) => `${n} minutos`,
  hello: (name) => `Hola ${name}:`,
  helloTeam: 'Hola:',
  yourMessage: 'Tu mensaje',
  name: 'Nombre',
  email: 'Correo electrónico',
  phone: 'Teléfono',
  message: 'Mensaje',
  reason: 'Motivo',
  previously: 'Antes',
  manageLink: 'Cancelar o cambiar la cita',
  answerLink: 'Confirmar o rechazar en la aplicación del equipo',
  receivedSubject: (ws) => `Hemos recibido tu solicitud de cita – ${ws}`,
  receivedBody: (ws) => `Gracias por tu solicitud de cita con ${ws}. Aún no está confirmada: recibirás otro correo cuando se confirme o se rechace.`,
  notifiedSubject: (v) => `Nueva solicitud de cita de ${v}`,
  notifiedBody: (v, ws) => `${v} ha solicitado una cita con ${ws}. Confírmala o recházala en el CMS.`,
  confirmedSubject: (ws) => `Tu cita con ${ws} está confirmada`,
  confirmedBody: (ws) => `Tu cita con ${ws} está confirmada.`,
  declinedSubject: (ws) => `Tu solicitud de cita con ${ws} ha sido rechazada`,
  declinedBody: (ws) => `Lamentablemente, ${ws} no ha podido aceptar tu solicitud de cita.`,
  cancelledSubject: (ws) => `Tu cita con ${ws} está cancelada`,
  cancelledBody: (ws) => `Tu cita con ${ws} está cancelada.`,
  rescheduledSubject: (ws) => `Tu cita con ${ws} ha cambiado de hora`,
  rescheduledBody: (ws) => `Tu cita con ${ws} se ha movido a una nueva hora.`,
  reminderSubject: (ws) => `Recordatorio: tu cita con ${ws}`,
  reminderBody: (ws) => `Te recordamos tu cita con ${ws}.`,
  teamCancelledSubject: (v) => `${v} ha cancelado una cita`,
  teamCancelledBody: (v) => `${v} ha cancelado su cita; la hora vuelve a estar libre.`,
  teamRescheduledSubject: (v) => `${v} ha cambiado una cita`,
  teamRescheduledBody: (v) => `${v} ha movido su cita a una nueva hora.`,
};

const STRINGS: Record<string, AppointmentStrings> = { en, de, fr, es };

export const MAIL_LANGUAGES = Object.keys(STRINGS);

/** The mail language of a BCP 47 tag: its primary language when written, else the fallback, else English. */
export function mailLanguage(locale: string | null | undefined, fallback?: string | null): string {
  for (const tag of [locale, fallback]) {
    const language = supportedLanguage(STRINGS, tag);
    if (language) return language;
  }
  return 'en';
}

export function stringsFor(language: string): AppointmentStrings {
  return STRINGS[language] ?? en;
}
