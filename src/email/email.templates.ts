/** Data of the appointment mails of the spec. Times are ISO 8601 UTC; templates render them in `timezone`. */
export interface AppointmentMailData {
  workspaceName: string;
  visitorName: string;
  visitorEmail: string;
  visitorPhone?: string | null;
  visitorMessage?: string | null;
  /** Requested or scheduled start, ISO 8601 UTC. */
  start: string;
  durationMinutes: number;
  timezone: string;
  declineReason?: string | null;
  policyText?: string | null;
}

export type RenderedMail = { subject: string; text: string; html: string };

/**
 * The four appointment mails. STUB until the Jobs issue lands (plain text only, HTML escaped later):
 * the function names and `AppointmentMailData` are the contract.
 */
const stub = (subject: string) => (data: AppointmentMailData): RenderedMail => ({
  subject: `${subject}: ${data.workspaceName}`,
  text: `${subject}\n${data.visitorName} ${data.start}`,
  html: '',
});

export const appointmentEmails = {
  /** To the visitor: request received. */
  visitorReceived: stub('We received your appointment request'),
  /** To the customer (plugin notification address): a new request. */
  customerNotified: stub('New appointment request'),
  /** To the visitor: confirmed (or rescheduled; `start` is the scheduled start). */
  visitorConfirmed: stub('Your appointment is confirmed'),
  /** To the visitor: declined, with the optional reason. */
  visitorDeclined: stub('Your appointment request was declined'),
};
