import { Schema, Types, type Connection, type UpdateQuery } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { inOrderOf, tenantScope } from '../db/tenant-store.js';
import { bucketOf, sequenceStore } from '../db/newest-first.js';
import { engineTraits } from '../db/engine-traits.js';
import { constantTimeEqual } from '../shared/crypto.js';
import { parseObjectId } from '../shared/ids.js';
import { offsetOf, type PageRequest } from '../shared/paging.js';
import { emailKeyOf, visitorRecordBranches, type PersonKeys } from '../shared/person-keys.js';
import { literalSearch, searchGramsOf } from '../shared/search-grams.js';
import type { TokenRef } from './tokens.js';
import { SCHEDULE_KEYS_FILED_BACK_MS, scheduleKeys, scheduleKeysOverlapping, scheduleKeysStarting, type ScheduleKeyFilter } from './schedule-keys.js';

export type AppointmentStatus = 'PENDING' | 'CONFIRMED' | 'REJECTED' | 'CANCELLED';

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
  /** Why a confirmed appointment was cancelled (by the visitor's manage link or by the team), when told. */
  cancelReason: string | null;
  createdAt: Date;
  /** BCP 47 tag the visitor's mails are written in (the request's, else the workspace default). */
  locale: string | null;
}

export interface AppointmentDoc extends Omit<Appointment, 'id' | 'workspaceId' | 'visitorAttributes'> {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  visitorAttributesJson: string | null;
  /** SHA-256 of the live cancellation token; null once revoked (confirm/decline) or consumed (cancel). */
  cancellationTokenHash: string | null;
  /** SHA-256 of a token consumed by cancel, so a second cancel can say "no longer pending" rather than "unknown". */
  consumedTokenHash: string | null;
  /** SHA-256 of the visitor's manage token, minted at confirmation. */
  manageTokenHash: string | null;
  cancelReason: string | null;
  /**
   * `schedule-keys.ts`: the UTC day and month of `scheduledAt`, written with it. Absent on appointments stored
   * before the keys existed (`fileScheduleKeysOfEarlierVersions` files the confirmed ones a read can reach).
   */
  scheduledDay?: string | null;
  scheduledMonth?: string | null;
  /** `emailKeyOf(visitorEmail)`, written with it (`person-keys.ts`); absent on records stored before it was kept until the upgrade files it. */
  visitorEmailKey?: string;
  /** The grams of the visitor's name and e-mail (`search-grams.ts`); absent on records stored before them until the upgrade files them. */
  searchGrams?: string[];
  /** The staff list's bucket (`newest-first.ts`), taken when requested; absent on appointments stored before it until the upgrade files them below. */
  listBucket?: number;
}

const appointmentSchema = new Schema<AppointmentDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    status: { type: String, required: true },
    requestedAt: { type: Date, required: true },
    scheduledAt: { type: Date, default: null },
    scheduledEnd: { type: Date, default: null },
    scheduledDay: { type: String, default: null },
    scheduledMonth: { type: String, default: null },
    durationMinutes: { type: Number, required: true },
    timezone: { type: String, required: true },
    visitorName: { type: String, required: true },
    visitorEmail: { type: String, required: true },
    visitorEmailKey: { type: String },
    searchGrams: { type: [String], default: undefined },
    listBucket: { type: Number },
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
    manageTokenHash: { type: String, default: null },
    cancelReason: { type: String, default: null },
    locale: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'appointments' },
);
// Staff list and the inbox (a status filter or none, newest first), a bucket at a time (`list`).
appointmentSchema.index({ workspaceId: 1, status: 1, listBucket: -1, createdAt: -1 });
appointmentSchema.index({ workspaceId: 1, listBucket: -1, createdAt: -1, _id: -1 });
// Staff agenda (a status and a time range, in the order of time).
appointmentSchema.index({ workspaceId: 1, status: 1, scheduledAt: 1 });
// Availability, booking and the calendar feed (`confirmedOverlapping`): the confirmed appointments of one day,
// or of one month for a long range, overlapping the range.
appointmentSchema.index({ workspaceId: 1, scheduledDay: 1, status: 1, scheduledAt: 1 });
appointmentSchema.index({ workspaceId: 1, scheduledMonth: 1, status: 1, scheduledAt: 1 });
// Verified lookup: one person's bookings, newest first; also the person timeline's externalId branch (`ofPerson`).
appointmentSchema.index({ workspaceId: 1, externalId: 1, createdAt: -1 });
// Person timeline (`ofPerson`): a workspace's bookings made from one widget session, newest first.
appointmentSchema.index({ workspaceId: 1, visitorSessionId: 1, createdAt: -1 });
// Person timeline (`ofPerson`) by e-mail in any case, by its key.
appointmentSchema.index({ workspaceId: 1, visitorEmailKey: 1, createdAt: -1 });
// The booking requests' and inbox's `q`: the appointments holding one gram of it (multikey).
appointmentSchema.index({ workspaceId: 1, searchGrams: 1 });
// Legacy tokens only (`tokens.ts`: issued before tokens named their appointment, found by hash): the view
// and cancel of a cancellation token, a second cancel (consumed), the manage page and its actions. Tokens
// of today are read by `_id`. Not unique: FerretDB has no partial indexes and revoked tokens are null;
// tokens are 256-bit random, so a collision is not a concern.
appointmentSchema.index({ cancellationTokenHash: 1 });
appointmentSchema.index({ consumedTokenHash: 1 });
appointmentSchema.index({ manageTokenHash: 1 });

export const Appointments = defineModel('Appointment', appointmentSchema);

/** The sequence a workspace's appointments take their staff-list bucket from. */
export const appointmentListSequence = (workspaceId: string) => `${workspaceId}:appointments`;

/** Pre-made (see `create`) so the cancellation token can name its appointment. */
export const newAppointmentId = () => new Types.ObjectId().toHexString();

type TokenField = 'cancellationTokenHash' | 'consumedTokenHash' | 'manageTokenHash';

/** Whether a stored token hash is the presented token's, in constant time (a null hash matches nothing). */
const sameHash = (stored: string | null | undefined, presented: string) => !!stored && constantTimeEqual(stored, presented);

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
    visitorAttributes: loadJson<Record<string, string>>(doc.visitorAttributesJson),
    declineReason: doc.declineReason ?? null,
    rescheduleCount: doc.rescheduleCount ?? 0,
    respondedAt: doc.respondedAt ?? null,
    cancelledAt: doc.cancelledAt ?? null,
    cancelReason: doc.cancelReason ?? null,
    createdAt: doc.createdAt,
    locale: doc.locale ?? null,
  };
}

/** One status or any of several; `q`: a literal, case-insensitive part of the visitor's name or e-mail. */
export interface AppointmentFilter {
  status?: AppointmentStatus | AppointmentStatus[];
  q?: string;
  from?: Date;
  to?: Date;
}

export type NewAppointment = Omit<Appointment, 'id' | 'workspaceId' | 'status' | 'scheduledAt' | 'scheduledEnd' | 'declineReason' | 'rescheduleCount' | 'respondedAt' | 'cancelledAt' | 'cancelReason'>;

/** An agenda's order: by start, then by id. */
const AGENDA_ORDER = { scheduledAt: 1, _id: 1 } as const;

/** Past this many keys (a range of years, read month by month) an agenda is read with one range query. */
const AGENDA_KEYS_MAX = 31;

export function appointmentStore(db: Connection) {
  const model = Appointments(db);
  const scope = tenantScope(model);
  const sequences = sequenceStore(db);
  const one = (doc: AppointmentDoc | null) => (doc ? toAppointment(doc) : null);
  // FerretDB serves only a filter of exactly `{_id}` without scanning every tenant's appointments.
  const byPrimaryKey = (id: string) => model.findOne({ _id: new Types.ObjectId(id) }).lean<AppointmentDoc>();
  /** The appointment whose `field` holds the token's hash: by the id the token names, else (legacy) by the hash. */
  const byTokenIn = async (field: TokenField, ref: TokenRef, tokenHash: string): Promise<Appointment | null> => {
    if ('legacy' in ref) return one(await model.findOne({ [field]: tokenHash }).lean<AppointmentDoc>());
    const doc = await byPrimaryKey(ref.id);
    return doc && sameHash(doc[field], tokenHash) ? toAppointment(doc) : null;
  };
  /**
   * A conditional state change of one appointment; null when `holds` is false of what is stored (or there is
   * none). One transition of the appointment (`document-locks.ts`): the condition is checked on what is stored
   * and the change written with no other writer of it in between, so of racing confirms, cancels and moves one
   * wins and the others see its result. Read and written by `_id` alone, the one filter FerretDB on SQLite
   * does not answer by decoding every appointment.
   */
  const leaveState = async (_id: Types.ObjectId, holds: (doc: AppointmentDoc) => boolean, update: UpdateQuery<AppointmentDoc>) =>
    scope.transition(_id.toHexString(), async () => {
      const stored = await model.findOne({ _id }).lean<AppointmentDoc>();
      if (!stored || !holds(stored)) return null;
      return one(await model.findOneAndUpdate({ _id }, update, { returnDocument: 'after' }).lean<AppointmentDoc>());
    });
  /** `leaveState` for one appointment of the workspace. */
  const transition = async (workspaceId: string, id: string, holds: (doc: AppointmentDoc) => boolean, update: UpdateQuery<AppointmentDoc>) => {
    const _id = parseObjectId(id);
    if (!_id) return null;
    return leaveState(_id, (doc) => doc.workspaceId.toHexString() === workspaceId && holds(doc), update);
  };
  /**
   * The keys an agenda is read by, or null when one range query serves it better or they would miss some of it:
   * on an engine that hands its storage equalities but no range (FerretDB on PostgreSQL), a range query decodes
   * every confirmed appointment of the workspace (50,000 appointments: 6.9 s for a week, bench:scale), a read by
   * the days of the range only theirs. Confirmed appointments only, for a range within the keys' reach back
   * (`SCHEDULE_KEYS_FILED_BACK_MS`): one cancelled before the keys came may have none.
   */
  const agendaKeys = ({ status, from, to }: AppointmentFilter, now: Date): ScheduleKeyFilter[] | null => {
    const { rangePushdown, equalityPushdown } = engineTraits(db);
    const statuses = status === undefined ? [] : [status].flat();
    if (rangePushdown || !equalityPushdown || !from || !to || statuses.length === 0 || statuses.some((each) => each !== 'CONFIRMED')) return null;
    if (from.getTime() < now.getTime() - SCHEDULE_KEYS_FILED_BACK_MS) return null;
    const keys = scheduleKeysStarting(from, to);
    return keys.length > 0 && keys.length <= AGENDA_KEYS_MAX ? keys : null;
  };
  /** An agenda's page read key by key (in parallel, each with the whole filter), as `scope.page` answers it. */
  const keyedAgendaPage = async (workspaceId: string, where: Record<string, unknown>, keys: ScheduleKeyFilter[], request: PageRequest) => {
    const found = (await Promise.all(keys.map((key) => scope.find(workspaceId, { ...where, ...key })))).flat();
    found.sort(inOrderOf(AGENDA_ORDER));
    const offset = offsetOf(request);
    const total = request.withTotal === false ? offset + found.slice(offset, offset + request.limit + 1).length : found.length;
    return { docs: found.slice(offset, offset + request.limit), total };
  };
  const isPending = (doc: AppointmentDoc) => doc.status === 'PENDING';
  /** Confirmed, still at the start the caller saw. */
  const confirmedAt = (start: Date) => (doc: AppointmentDoc) => doc.status === 'CONFIRMED' && doc.scheduledAt?.getTime() === start.getTime();
  return {
    /** `id` from `newAppointmentId`, which the cancellation token names. */
    async create(workspaceId: string, id: string, input: Omit<NewAppointment, 'locale'> & { locale?: string | null }, cancellationTokenHash: string): Promise<Appointment> {
      const { visitorAttributes, ...rest } = input;
      const doc = await model.create({
        ...rest,
        _id: new Types.ObjectId(id),
        workspaceId: new Types.ObjectId(workspaceId),
        status: 'PENDING',
        visitorAttributesJson: storeJson(visitorAttributes),
        visitorEmailKey: emailKeyOf(rest.visitorEmail),
        searchGrams: searchGramsOf(rest.visitorName, rest.visitorEmail),
        listBucket: bucketOf(await sequences.take(appointmentListSequence(workspaceId))),
        cancellationTokenHash,
        consumedTokenHash: null,
        rescheduleCount: 0,
      });
      return toAppointment(doc.toObject());
    },
    async byId(workspaceId: string, id: string): Promise<Appointment | null> {
      return one(await scope.byId(workspaceId, id));
    },
    /**
     * Newest request first; with `from`/`to`, the appointments scheduled in [from, to) in the order of their
     * time (an agenda), each bound optional. `now` tells how far back confirmed appointments carry their schedule keys.
     */
    async list(workspaceId: string, filter: AppointmentFilter, request: PageRequest, now: Date): Promise<{ items: Appointment[]; total: number }> {
      const where: Record<string, unknown> = filter.status ? { status: Array.isArray(filter.status) ? { $in: filter.status } : filter.status } : {};
      if (filter.q) Object.assign(where, literalSearch(filter.q, ['visitorName', 'visitorEmail']));
      const agenda = filter.from !== undefined || filter.to !== undefined;
      if (agenda) where.scheduledAt = { $ne: null, ...(filter.from && { $gte: filter.from }), ...(filter.to && { $lt: filter.to }) };
      if (!agenda) {
        const newest = { field: 'listBucket', sequence: appointmentListSequence(workspaceId), sort: { createdAt: -1, _id: -1 } } as const;
        const { docs, total } = await scope.newestPage(workspaceId, where, newest, request);
        return { items: docs.map(toAppointment), total };
      }
      const keys = agendaKeys(filter, now);
      const { docs, total } = keys ? await keyedAgendaPage(workspaceId, where, keys, request) : await scope.page(workspaceId, where, AGENDA_ORDER, request);
      return { items: docs.map(toAppointment), total };
    },
    /**
     * Confirmed appointments whose time overlaps [from, to): one equality query per day (or month) on which
     * such an appointment can start, in parallel, each keeping the range conditions (exact on every engine,
     * and MongoDB seeks its index). FerretDB decodes only the appointments filed under those keys.
     */
    async confirmedOverlapping(workspaceId: string, from: Date, to: Date): Promise<Appointment[]> {
      const overlapping = { status: 'CONFIRMED' as const, scheduledAt: { $lt: to }, scheduledEnd: { $gt: from } };
      // Where every query decodes the whole collection (FerretDB on SQLite), one query costs least.
      if (!engineTraits(db).equalityPushdown) return (await scope.find(workspaceId, overlapping)).map(toAppointment);
      const found = await Promise.all(scheduleKeysOverlapping(from, to).map((key) => scope.find(workspaceId, { ...key, ...overlapping })));
      return found.flat().map(toAppointment);
    },
    /** A verified person's bookings, newest first; with `id`, only that one (when it is theirs). */
    async verifiedOf(workspaceId: string, externalId: string, limit: number, id?: string): Promise<Appointment[]> {
      const filter: Record<string, unknown> = { externalId, identityVerified: true };
      if (id !== undefined) {
        const _id = parseObjectId(id);
        if (!_id) return [];
        filter._id = _id;
      }
      const docs = await scope.find(workspaceId, filter, { sort: { createdAt: -1, _id: -1 }, limit });
      return docs.map(toAppointment);
    },
    /**
     * The person timeline: the workspace's bookings carrying any of `keys` (a verified externalId, the
     * visitor's e-mail in any case, the widget session), newest first.
     */
    async ofPerson(workspaceId: string, keys: PersonKeys, limit: number): Promise<Appointment[]> {
      const docs = await scope.findAny(workspaceId, visitorRecordBranches(keys), { sort: { createdAt: -1, _id: -1 }, limit });
      return docs.map(toAppointment);
    },
    // The token lookups span workspaces: the token alone is the visitor's credential.
    /** The request of a live cancellation token (pending; revoked by confirm or decline, consumed by cancel). */
    byLiveToken(ref: TokenRef, tokenHash: string): Promise<Appointment | null> {
      return byTokenIn('cancellationTokenHash', ref, tokenHash);
    },
    byManageToken(ref: TokenRef, tokenHash: string): Promise<Appointment | null> {
      return byTokenIn('manageTokenHash', ref, tokenHash);
    },
    /**
     * PENDING -> CANCELLED through the cancellation token, one transition of the appointment: `cancelled`
     * when this call cancelled it; `used` when the token was live or consumed but the request is no longer
     * pending (a cancel won, or is under way); null when no appointment holds the token.
     */
    async cancelByToken(ref: TokenRef, tokenHash: string, at: Date): Promise<{ cancelled: Appointment } | { used: Appointment } | null> {
      const update = { $set: { status: 'CANCELLED', cancellationTokenHash: null, consumedTokenHash: tokenHash, cancelledAt: at } };
      if ('legacy' in ref) {
        const live = await model.findOne({ cancellationTokenHash: tokenHash }, { _id: 1 }).lean<{ _id: Types.ObjectId }>();
        const cancelled = live && (await leaveState(live._id, (doc) => isPending(doc) && doc.cancellationTokenHash === tokenHash, update));
        if (cancelled) return { cancelled };
        // Live first: a racing cancel that won clears the live token and sets the consumed one in one write,
        // so whichever lookup runs after that write finds it. Still PENDING means that cancel is under way.
        const used = (await byTokenIn('cancellationTokenHash', ref, tokenHash)) ?? (await byTokenIn('consumedTokenHash', ref, tokenHash));
        return used ? { used } : null;
      }
      const holds = (doc: AppointmentDoc | null): doc is AppointmentDoc =>
        !!doc && (sameHash(doc.cancellationTokenHash, tokenHash) || sameHash(doc.consumedTokenHash, tokenHash));
      // A token that names nothing costs one primary-key read and takes no lock.
      if (!holds(await byPrimaryKey(ref.id))) return null;
      return scope.transition(ref.id, async () => {
        // What is stored now: no other writer of the appointment runs until this returns.
        const doc = await byPrimaryKey(ref.id);
        if (!holds(doc)) return null;
        if (doc.status !== 'PENDING' || !sameHash(doc.cancellationTokenHash, tokenHash)) return { used: toAppointment(doc) };
        const after = await model.findOneAndUpdate({ _id: doc._id }, update, { returnDocument: 'after' }).lean<AppointmentDoc>();
        return after ? { cancelled: toAppointment(after) } : null;
      });
    },
    /** PENDING -> CONFIRMED; null when it is no longer pending (a concurrent cancel or response won). */
    async confirm(workspaceId: string, id: string, scheduledAt: Date, scheduledEnd: Date, at: Date, manageTokenHash: string | null = null): Promise<Appointment | null> {
      return transition(workspaceId, id, isPending, {
        $set: { status: 'CONFIRMED', scheduledAt, scheduledEnd, ...scheduleKeys(scheduledAt), respondedAt: at, cancellationTokenHash: null, manageTokenHash },
      });
    },
    /** CONFIRMED -> CANCELLED (the visitor's manage link), guarded by the start the check saw. */
    async cancelConfirmed(workspaceId: string, id: string, start: Date, reason: string | null, at: Date): Promise<Appointment | null> {
      return transition(workspaceId, id, confirmedAt(start), { $set: { status: 'CANCELLED', cancelledAt: at, cancelReason: reason } });
    },
    /** The visitor's move: as `reschedule`, and only while fewer than `limit` moves were made. */
    async rescheduleWithin(workspaceId: string, id: string, from: Date, scheduledAt: Date, scheduledEnd: Date, limit: number): Promise<Appointment | null> {
      return transition(
        workspaceId,
        id,
        (doc) => confirmedAt(from)(doc) && (doc.rescheduleCount ?? 0) < limit,
        { $set: { scheduledAt, scheduledEnd, ...scheduleKeys(scheduledAt) }, $inc: { rescheduleCount: 1 } },
      );
    },

    async decline(workspaceId: string, id: string, reason: string | null, at: Date): Promise<Appointment | null> {
      return transition(workspaceId, id, isPending, {
        $set: { status: 'REJECTED', declineReason: reason, respondedAt: at, cancellationTokenHash: null },
      });
    },
    /** Moves a confirmed appointment, guarded by the start it had when the move was planned. */
    async reschedule(workspaceId: string, id: string, from: Date, scheduledAt: Date, scheduledEnd: Date): Promise<Appointment | null> {
      return transition(workspaceId, id, confirmedAt(from), { $set: { scheduledAt, scheduledEnd, ...scheduleKeys(scheduledAt) }, $inc: { rescheduleCount: 1 } });
    },
  };
}
