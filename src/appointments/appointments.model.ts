import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { parseObjectId } from '../shared/ids.js';

export type AppointmentStatus = 'PENDING' | 'CONFIRMED' | 'REJECTED' | 'CANCELLED';
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Per weekday, `[start, end]` ranges of local wall time ("HH:MM"). */
export type BusinessHours = Partial<Record<Weekday, [string, string][]>>;

export interface AppointmentSettings {
  workspaceId: string;
  enabled: boolean;
  timezone: string;
  slotDurationMinutes: number;
  leadTimeHours: number;
  bookingWindowDays: number;
  policyText: string | null;
  businessHours: BusinessHours;
  notificationEmail: string | null;
  updatedAt: Date;
}

export interface Appointment {
  id: string;
  workspaceId: string;
  status: AppointmentStatus;
  requestedAt: Date;
  scheduledAt: Date | null;
  scheduledEnd: Date | null;
  durationMinutes: number;
  timezone: string;
  visitorName: string;
  visitorEmail: string;
  visitorPhone: string | null;
  visitorMessage: string | null;
  visitorSessionId: string | null;
  externalId: string | null;
  identityVerified: boolean;
  visitorAttributes: Record<string, string> | null;
  declineReason: string | null;
  rescheduleCount: number;
  respondedAt: Date | null;
  cancelledAt: Date | null;
  createdAt: Date;
}

// ---------------------------------------------------------------------------------------------------
// Settings: one document per workspace.

interface SettingsDoc extends Omit<AppointmentSettings, 'workspaceId' | 'businessHours'> {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  // Stored as JSON text: FerretDB 1.24 has no nested arrays.
  businessHoursJson: string;
}

const settingsSchema = new Schema<SettingsDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    enabled: { type: Boolean, required: true },
    timezone: { type: String, required: true },
    slotDurationMinutes: { type: Number, required: true },
    leadTimeHours: { type: Number, required: true },
    bookingWindowDays: { type: Number, required: true },
    policyText: { type: String, default: null },
    businessHoursJson: { type: String, required: true },
    notificationEmail: { type: String, default: null },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'appointment_settings' },
);
// Every availability and request call reads the workspace's settings.
settingsSchema.index({ workspaceId: 1 }, { unique: true });

const Settings = defineModel('AppointmentSettings', settingsSchema);

function toSettings(doc: SettingsDoc): AppointmentSettings {
  return {
    workspaceId: doc.workspaceId.toHexString(),
    enabled: doc.enabled,
    timezone: doc.timezone,
    slotDurationMinutes: doc.slotDurationMinutes,
    leadTimeHours: doc.leadTimeHours,
    bookingWindowDays: doc.bookingWindowDays,
    policyText: doc.policyText ?? null,
    businessHours: JSON.parse(doc.businessHoursJson) as BusinessHours,
    notificationEmail: doc.notificationEmail ?? null,
    updatedAt: doc.updatedAt,
  };
}

export function appointmentSettingsStore(db: Connection) {
  const model = Settings(db);
  return {
    async get(workspaceId: string): Promise<AppointmentSettings | null> {
      const doc = await model.findOne({ workspaceId: new Types.ObjectId(workspaceId) }).lean<SettingsDoc>();
      return doc ? toSettings(doc) : null;
    },
    async put(workspaceId: string, settings: Omit<AppointmentSettings, 'workspaceId'>): Promise<AppointmentSettings> {
      const { businessHours, ...rest } = settings;
      const doc = await model
        .findOneAndUpdate(
          { workspaceId: new Types.ObjectId(workspaceId) },
          { $set: { ...rest, businessHoursJson: JSON.stringify(businessHours) } },
          { upsert: true, returnDocument: 'after' },
        )
        .lean<SettingsDoc>();
      return toSettings(doc!);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Appointments.

interface AppointmentDoc extends Omit<Appointment, 'id' | 'workspaceId' | 'visitorAttributes'> {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  visitorAttributesJson: string | null;
  /** SHA-256 of the live cancellation token; null once revoked (confirm/decline) or consumed (cancel). */
  cancellationTokenHash: string | null;
  /** SHA-256 of a token consumed by cancel, so a second cancel can say "no longer pending" (400). */
  consumedTokenHash: string | null;
}

const appointmentSchema = new Schema<AppointmentDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    status: { type: String, required: true },
    requestedAt: { type: Date, required: true },
    scheduledAt: { type: Date, default: null },
    scheduledEnd: { type: Date, default: null },
    durationMinutes: { type: Number, required: true },
    timezone: { type: String, required: true },
    visitorName: { type: String, required: true },
    visitorEmail: { type: String, required: true },
    visitorPhone: { type: String, default: null },
    visitorMessage: { type: String, default: null },
    visitorSessionId: { type: String, default: null },
    externalId: { type: String, default: null },
    identityVerified: { type: Boolean, required: true },
    visitorAttributesJson: { type: String, default: null },
    declineReason: { type: String, default: null },
    rescheduleCount: { type: Number, default: 0 },
    respondedAt: { type: Date, default: null },
    cancelledAt: { type: Date, default: null },
    cancellationTokenHash: { type: String, default: null },
    consumedTokenHash: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'appointments' },
);
// Staff list (status filter, newest first).
appointmentSchema.index({ workspaceId: 1, status: 1, createdAt: -1 });
// Availability: confirmed appointments overlapping the window.
appointmentSchema.index({ workspaceId: 1, status: 1, scheduledAt: 1 });
// Verified lookup: one person's bookings, newest first.
appointmentSchema.index({ workspaceId: 1, externalId: 1, createdAt: -1 });
// Token lookup and cancel. Not unique: FerretDB has no partial indexes and revoked tokens are null;
// tokens are 256-bit random, so a collision is not a concern.
appointmentSchema.index({ cancellationTokenHash: 1 });
appointmentSchema.index({ consumedTokenHash: 1 });

const Appointments = defineModel('Appointment', appointmentSchema);

function toAppointment(doc: AppointmentDoc): Appointment {
  return {
    id: doc._id.toHexString(),
    workspaceId: doc.workspaceId.toHexString(),
    status: doc.status,
    requestedAt: doc.requestedAt,
    scheduledAt: doc.scheduledAt ?? null,
    scheduledEnd: doc.scheduledEnd ?? null,
    durationMinutes: doc.durationMinutes,
    timezone: doc.timezone,
    visitorName: doc.visitorName,
    visitorEmail: doc.visitorEmail,
    visitorPhone: doc.visitorPhone ?? null,
    visitorMessage: doc.visitorMessage ?? null,
    visitorSessionId: doc.visitorSessionId ?? null,
    externalId: doc.externalId ?? null,
    identityVerified: doc.identityVerified,
    visitorAttributes: doc.visitorAttributesJson ? (JSON.parse(doc.visitorAttributesJson) as Record<string, string>) : null,
    declineReason: doc.declineReason ?? null,
    rescheduleCount: doc.rescheduleCount ?? 0,
    respondedAt: doc.respondedAt ?? null,
    cancelledAt: doc.cancelledAt ?? null,
    createdAt: doc.createdAt,
  };
}

export type NewAppointment = Omit<Appointment, 'id' | 'workspaceId' | 'status' | 'scheduledAt' | 'scheduledEnd' | 'declineReason' | 'rescheduleCount' | 'respondedAt' | 'cancelledAt'>;

export function appointmentStore(db: Connection) {
  const model = Appointments(db);
  const scope = (workspaceId: string, id: string) => {
    const oid = parseObjectId(id);
    return oid ? { _id: oid, workspaceId: new Types.ObjectId(workspaceId) } : null;
  };
  const one = (doc: AppointmentDoc | null) => (doc ? toAppointment(doc) : null);
  return {
    async create(workspaceId: string, input: NewAppointment, cancellationTokenHash: string): Promise<Appointment> {
      const { visitorAttributes, ...rest } = input;
      const doc = await model.create({
        ...rest,
        workspaceId: new Types.ObjectId(workspaceId),
        status: 'PENDING',
        visitorAttributesJson: visitorAttributes ? JSON.stringify(visitorAttributes) : null,
        cancellationTokenHash,
        consumedTokenHash: null,
        rescheduleCount: 0,
      });
      return toAppointment(doc.toObject());
    },
    async byId(workspaceId: string, id: string): Promise<Appointment | null> {
      const filter = scope(workspaceId, id);
      return filter ? one(await model.findOne(filter).lean<AppointmentDoc>()) : null;
    },
    async list(workspaceId: string, filter: { status?: AppointmentStatus }, page: { skip: number; limit: number }): Promise<{ items: Appointment[]; total: number }> {
      const query = { workspaceId: new Types.ObjectId(workspaceId), ...(filter.status ? { status: filter.status } : {}) };
      const [docs, total] = await Promise.all([
        model.find(query).sort({ createdAt: -1, _id: -1 }).skip(page.skip).limit(page.limit).lean<AppointmentDoc[]>(),
        model.countDocuments(query),
      ]);
      return { items: docs.map(toAppointment), total };
    },
    /** Confirmed appointments whose time overlaps [from, to). */
    async confirmedOverlapping(workspaceId: string, from: Date, to: Date): Promise<Appointment[]> {
      const docs = await model
        .find({ workspaceId: new Types.ObjectId(workspaceId), status: 'CONFIRMED', scheduledAt: { $lt: to }, scheduledEnd: { $gt: from } })
        .lean<AppointmentDoc[]>();
      return docs.map(toAppointment);
    },
    async verifiedOf(workspaceId: string, externalId: string, limit: number, id?: string): Promise<Appointment[]> {
      const query: Record<string, unknown> = { workspaceId: new Types.ObjectId(workspaceId), externalId, identityVerified: true };
      if (id !== undefined) {
        const oid = parseObjectId(id);
        if (!oid) return [];
        query._id = oid;
      }
      const docs = await model.find(query).sort({ createdAt: -1, _id: -1 }).limit(limit).lean<AppointmentDoc[]>();
      return docs.map(toAppointment);
    },
    async byLiveToken(tokenHash: string): Promise<Appointment | null> {
      return one(await model.findOne({ cancellationTokenHash: tokenHash }).lean<AppointmentDoc>());
    },
    async byConsumedToken(tokenHash: string): Promise<Appointment | null> {
      return one(await model.findOne({ consumedTokenHash: tokenHash }).lean<AppointmentDoc>());
    },
    /** PENDING -> CANCELLED through the token, atomically; null when no pending request holds it. */
    async cancelByToken(tokenHash: string, at: Date): Promise<Appointment | null> {
      return one(
        await model
          .findOneAndUpdate(
            { cancellationTokenHash: tokenHash, status: 'PENDING' },
            { $set: { status: 'CANCELLED', cancellationTokenHash: null, consumedTokenHash: tokenHash, cancelledAt: at } },
            { returnDocument: 'after' },
          )
          .lean<AppointmentDoc>(),
      );
    },
    /** PENDING -> CONFIRMED; null when it is no longer pending (a concurrent cancel or response won). */
    async confirm(workspaceId: string, id: string, scheduledAt: Date, scheduledEnd: Date, at: Date): Promise<Appointment | null> {
      const filter = scope(workspaceId, id);
      if (!filter) return null;
      return one(
        await model
          .findOneAndUpdate(
            { ...filter, status: 'PENDING' },
            { $set: { status: 'CONFIRMED', scheduledAt, scheduledEnd, respondedAt: at, cancellationTokenHash: null } },
            { returnDocument: 'after' },
          )
          .lean<AppointmentDoc>(),
      );
    },
    async decline(workspaceId: string, id: string, reason: string | null, at: Date): Promise<Appointment | null> {
      const filter = scope(workspaceId, id);
      if (!filter) return null;
      return one(
        await model
          .findOneAndUpdate(
            { ...filter, status: 'PENDING' },
            { $set: { status: 'REJECTED', declineReason: reason, respondedAt: at, cancellationTokenHash: null } },
            { returnDocument: 'after' },
          )
          .lean<AppointmentDoc>(),
      );
    },
    /** Moves a confirmed appointment, guarded by the start it had when the move was planned. */
    async reschedule(workspaceId: string, id: string, from: Date, scheduledAt: Date, scheduledEnd: Date): Promise<Appointment | null> {
      const filter = scope(workspaceId, id);
      if (!filter) return null;
      return one(
        await model
          .findOneAndUpdate(
            { ...filter, status: 'CONFIRMED', scheduledAt: from },
            { $set: { scheduledAt, scheduledEnd }, $inc: { rescheduleCount: 1 } },
            { returnDocument: 'after' },
          )
          .lean<AppointmentDoc>(),
      );
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Reserved time cells: the database's guarantee that confirmed appointments never overlap.

/** Every confirmed appointment holds one document per 5-minute cell it covers. */
export const CELL_MINUTES = 5;

interface CellDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  start: Date;
  appointmentId: Types.ObjectId;
  /** One id per reservation attempt, so a failed attempt removes only what it inserted. */
  holdId: Types.ObjectId;
  reservedAt: Date;
}

const cellSchema = new Schema<CellDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    start: { type: Date, required: true },
    appointmentId: { type: Schema.Types.ObjectId, required: true },
    holdId: { type: Schema.Types.ObjectId, required: true },
    reservedAt: { type: Date, required: true },
  },
  { collection: 'appointment_cells' },
);
// The no-overlap rule itself: two confirmed appointments cannot hold the same cell of one workspace,
// whichever node inserts it. FerretDB has no transactions; this unique index is the arbiter.
cellSchema.index({ workspaceId: 1, start: 1 }, { unique: true });
// Releasing the cells of one appointment, and undoing one reservation attempt.
cellSchema.index({ workspaceId: 1, appointmentId: 1 });
cellSchema.index({ workspaceId: 1, holdId: 1 });

const Cells = defineModel('AppointmentCell', cellSchema);

export function cellStarts(start: Date, end: Date): Date[] {
  const cells: Date[] = [];
  for (let t = start.getTime(); t < end.getTime(); t += CELL_MINUTES * 60_000) cells.push(new Date(t));
  return cells;
}

export function cellStore(db: Connection) {
  const model = Cells(db);
  return {
    /**
     * Inserts every cell or none: on a duplicate key (a cell held by another appointment) the cells this
     * call inserted are removed again and null is returned. The answer is the hold id, to undo the
     * reservation when the state change that follows it loses a race.
     */
    async reserve(workspaceId: string, appointmentId: string, starts: Date[], at: Date): Promise<string | null> {
      const wid = new Types.ObjectId(workspaceId);
      const aid = new Types.ObjectId(appointmentId);
      const holdId = new Types.ObjectId();
      if (starts.length === 0) return holdId.toHexString();
      try {
        await model.insertMany(
          starts.map((start) => ({ workspaceId: wid, start, appointmentId: aid, holdId, reservedAt: at })),
          { ordered: true },
        );
        return holdId.toHexString();
      } catch (error) {
        const code = (error as { code?: number }).code;
        const writeErrors = (error as { writeErrors?: { code?: number; err?: { code?: number } }[] }).writeErrors;
        const duplicate = code === 11000 || writeErrors?.some((e) => (e.code ?? e.err?.code) === 11000);
        await model.deleteMany({ workspaceId: wid, holdId });
        if (duplicate) return null;
        throw error;
      }
    },
    /** Who holds these cells (to tell leftovers of an interrupted call from real reservations). */
    async holders(workspaceId: string, starts: Date[]): Promise<{ start: Date; appointmentId: string; holdId: string; reservedAt: Date }[]> {
      const docs = await model.find({ workspaceId: new Types.ObjectId(workspaceId), start: { $in: starts } }).lean<CellDoc[]>();
      return docs.map((d) => ({ start: d.start, appointmentId: d.appointmentId.toHexString(), holdId: d.holdId.toHexString(), reservedAt: d.reservedAt }));
    },
    /** Removes exactly one cell of one hold. */
    async removeCell(workspaceId: string, start: Date, holdId: string): Promise<void> {
      await model.deleteOne({ workspaceId: new Types.ObjectId(workspaceId), start, holdId: new Types.ObjectId(holdId) });
    },
    async undo(workspaceId: string, holdId: string): Promise<void> {
      await model.deleteMany({ workspaceId: new Types.ObjectId(workspaceId), holdId: new Types.ObjectId(holdId) });
    },
    async release(workspaceId: string, appointmentId: string, starts: Date[]): Promise<void> {
      if (starts.length === 0) return;
      await model.deleteMany({ workspaceId: new Types.ObjectId(workspaceId), appointmentId: new Types.ObjectId(appointmentId), start: { $in: starts } });
    },
  };
}
